import OpenSSLSupport
/// Why a P-256 key could not be loaded or used.
///
/// Compare errors by ``code``; ``message`` explains the failure in words that say what to
/// fix. Neither ever contains key material.
///
/// ```swift
/// do {
///     let key = try ES256PrivateKey(contentsOfFile: "AuthKey_ABC123DEFG.p8")
/// } catch where error.code == .unsupportedCurve {
///     print(error.message)  // "expected an EC key on curve P-256 (prime256v1), found secp384r1"
/// }
/// ```
public struct ES256KeyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure. New codes may be added, so switch statements need a default.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case unreadableFile
            case malformedPEM
            case unsupportedKeyType
            case unsupportedCurve
            case invalidJWK
            case invalidPublicKey
            case cryptoFailure
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The key file could not be read.
        public static let unreadableFile = Code(.unreadableFile)
        /// The text is not a PEM block of an accepted kind, or its content does not decode.
        public static let malformedPEM = Code(.malformedPEM)
        /// The key is not an elliptic-curve key (for example RSA or Ed25519).
        public static let unsupportedKeyType = Code(.unsupportedKeyType)
        /// The key is an elliptic-curve key on a curve other than P-256.
        public static let unsupportedCurve = Code(.unsupportedCurve)
        /// A JSON Web Key is malformed or lacks a required member.
        public static let invalidJWK = Code(.invalidJWK)
        /// The public point is not a valid point on P-256.
        public static let invalidPublicKey = Code(.invalidPublicKey)
        /// OpenSSL failed for a reason unrelated to the input (for example memory).
        public static let cryptoFailure = Code(.cryptoFailure)

        /// A one-line summary for logs; never contains key material.
        public var description: String { base.rawValue }
    }

    /// What went wrong.
    public let code: Code
    /// A sentence saying what was wrong and, where possible, what was found instead.
    public let message: String
    /// What OpenSSL reported, if an OpenSSL call failed.
    public let openSSLErrors: [OpenSSLErrorEntry]

    init(_ code: Code, _ message: String, openSSLErrors: [OpenSSLErrorEntry] = []) {
        self.code = code
        self.message = message
        self.openSSLErrors = openSSLErrors
    }

    /// Builds an error after a failed OpenSSL call, emptying the error queue into it.
    static func openSSL(_ code: Code, _ message: String) -> ES256KeyError {
        ES256KeyError(code, message, openSSLErrors: OpenSSLErrorQueue.drain())
    }

    /// Errors are equal when their codes are; messages are for people.
    public static func == (lhs: ES256KeyError, rhs: ES256KeyError) -> Bool {
        lhs.code == rhs.code
    }

    /// A one-line summary for logs; never contains key material.
    public var description: String {
        var text = "ES256KeyError.\(code): \(message)"
        if !openSSLErrors.isEmpty {
            text += " [OpenSSL: " + openSSLErrors.map(\.description).joined(separator: "; ") + "]"
        }
        return text
    }
}
