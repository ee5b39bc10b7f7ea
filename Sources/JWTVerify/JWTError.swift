import OpenSSLSupport
/// Why a JSON Web Token could not be parsed, verified or signed.
///
/// Compare by ``code``; ``message`` says what was wrong in terms a token's author can act
/// on. Messages quote header values such as `alg` and `kid`, never key material.
///
/// ```swift
/// do {
///     let verified = try verifier.verify(token)
/// } catch where error.code == .unsupportedAlgorithm {
///     print(error.message)  // "alg must be \"ES256\", found \"none\""
/// }
/// ```
public struct JWTError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure. New codes may be added, so switch statements need a default.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case malformedToken
            case unsupportedAlgorithm
            case missingKeyID
            case unknownKeyID
            case malformedSignature
            case signatureMismatch
            case invalidClaims
            case cryptoFailure
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// Not three base64url segments, or a header or claims set that is not a JSON object.
        public static let malformedToken = Code(.malformedToken)
        /// The header's `alg` is missing or is not `ES256` (for example `none` or `HS256`).
        public static let unsupportedAlgorithm = Code(.unsupportedAlgorithm)
        /// The header has no string `kid`.
        public static let missingKeyID = Code(.missingKeyID)
        /// No key is registered under the header's `kid`.
        public static let unknownKeyID = Code(.unknownKeyID)
        /// The signature is not 64 bytes, or r or s is outside 1...n-1.
        public static let malformedSignature = Code(.malformedSignature)
        /// The signature does not verify under the selected key.
        public static let signatureMismatch = Code(.signatureMismatch)
        /// Claims given for signing conflict or cannot be encoded.
        public static let invalidClaims = Code(.invalidClaims)
        /// OpenSSL failed for a reason unrelated to the token.
        public static let cryptoFailure = Code(.cryptoFailure)

        /// A one-line summary for logs; never contains key material.
        public var description: String { base.rawValue }
    }

    /// What went wrong.
    public let code: Code
    /// A sentence saying what was wrong.
    public let message: String
    /// What OpenSSL reported, for ``Code/cryptoFailure``.
    public let openSSLErrors: [OpenSSLErrorEntry]

    init(_ code: Code, _ message: String, openSSLErrors: [OpenSSLErrorEntry] = []) {
        self.code = code
        self.message = message
        self.openSSLErrors = openSSLErrors
    }

    init(_ failure: CryptoError) {
        self.init(.cryptoFailure, failure.message, openSSLErrors: failure.openSSLErrors)
    }

    /// Errors are equal when their codes are; messages are for people.
    public static func == (lhs: JWTError, rhs: JWTError) -> Bool {
        lhs.code == rhs.code
    }

    /// A one-line summary for logs; never contains key material.
    public var description: String { "JWTError.\(code): \(message)" }
}
