/// Verifies ES256 JSON Web Tokens against a set of public keys selected by `kid`.
///
/// Checks, in order: three segments of strict base64url; header and claims are JSON
/// objects; `alg` is exactly `"ES256"` (so `none`, `HS256` and every other value are
/// rejected, which rules out algorithm confusion); the signature is 64 bytes with r and s
/// in 1...n-1; `kid` names a registered key; the signature verifies. It checks no claims:
/// token lifetimes are policy, see ``APNsProviderTokenVerifier``.
///
/// ```swift
/// let verifier = JWTVerifier(keys: ["ABC123DEFG": try ES256PublicKey(contentsOfFile: "AuthKey_ABC123DEFG.pub.pem")])
/// let verified = try verifier.verify(token)
/// print(verified.keyID, verified.claims.issuer ?? "-")
/// ```
public struct JWTVerifier: Sendable {
    /// The registered keys by key ID.
    public let keys: [String: ES256PublicKey]

    /// Creates a verifier for the given keys.
    public init(keys: [String: ES256PublicKey]) {
        self.keys = keys
    }

    /// Decodes and verifies a compact-serialised token.
    ///
    /// - Throws: ``JWTError``; see ``JWTError/Code`` for the cases.
    public func verify(_ token: String) throws(JWTError) -> VerifiedJWT {
        try verify(DecodedJWT(parsing: token))
    }

    /// Verifies a token that has already been decoded.
    ///
    /// - Throws: ``JWTError``; see ``JWTError/Code`` for the cases.
    public func verify(_ token: DecodedJWT) throws(JWTError) -> VerifiedJWT {
        let keyID = try Self.checkHeaderAndSignatureShape(token)
        guard let key = keys[keyID] else {
            throw JWTError(.unknownKeyID, "no key is registered for kid \"\(keyID)\"")
        }
        try Self.verifySignature(of: token, with: key)
        return VerifiedJWT(keyID: keyID, token: token)
    }

    /// Applies the checks that need no key, returning the `kid`.
    static func checkHeaderAndSignatureShape(_ token: DecodedJWT) throws(JWTError) -> String {
        switch token.header.fields["alg"] {
        case .string("ES256"):
            break
        case .string(let other):
            throw JWTError(.unsupportedAlgorithm, "alg must be \"ES256\", found \"\(other)\"")
        case nil:
            throw JWTError(.unsupportedAlgorithm, "the header has no alg; it must be \"ES256\"")
        case let other?:
            throw JWTError(.unsupportedAlgorithm, "alg must be the string \"ES256\", found a JSON \(other.typeName)")
        }
        guard case .raw64(var signature) = token.signatureStorage else {
            throw JWTError(
                .malformedSignature, "an ES256 signature is 64 bytes (r||s), found \(token.signatureStorage.count)")
        }
        let inRange = withUnsafeBytes(of: &signature) { raw in
            raw.baseAddress.map(ECDSASignatureCodec.isRawSignatureInRange) ?? false
        }
        guard inRange else {
            throw JWTError(.malformedSignature, "signature r or s is outside 1...n-1")
        }
        switch token.header.fields["kid"] {
        case .string(let keyID):
            return keyID
        case nil:
            throw JWTError(.missingKeyID, "the header has no kid")
        case let other?:
            throw JWTError(.missingKeyID, "kid must be a string, found a JSON \(other.typeName)")
        }
    }

    /// Verifies the signature of a shape-checked token.
    static func verifySignature(of token: DecodedJWT, with key: ES256PublicKey) throws(JWTError) {
        var digest = token.signingInputDigest
        guard case .raw64(var signature) = token.signatureStorage else {
            throw JWTError(.malformedSignature, "an ES256 signature is 64 bytes (r||s), found \(token.signatureStorage.count)")
        }
        let outcome = withUnsafeBytes(of: &digest) { digestBytes in
            withUnsafeBytes(of: &signature) { raw in
                Result { () throws(CryptoError) -> Bool in
                    guard let digestBase = digestBytes.baseAddress, let rawBase = raw.baseAddress else { return false }
                    return try key.key.verify(
                        digest: digestBase.assumingMemoryBound(to: UInt8.self), rawSignature: rawBase)
                }
            }
        }
        let valid: Bool
        do {
            valid = try outcome.get()
        } catch {
            throw JWTError(error)
        }
        guard valid else {
            throw JWTError(.signatureMismatch, "the signature does not verify under the key for this kid")
        }
    }
}
