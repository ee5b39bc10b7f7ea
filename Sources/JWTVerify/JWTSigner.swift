import StrictJSON
import Foundation

/// Mints ES256 JSON Web Tokens, such as APNs provider tokens.
///
/// The header is `{"alg":"ES256","kid":…}`, plus `"typ":"JWT"` when asked for. The
/// signature is raw `r||s` in base64url without padding.
///
/// ```swift
/// let signer = JWTSigner(key: try ES256PrivateKey(contentsOfFile: "AuthKey_ABC123DEFG.p8"), keyID: "ABC123DEFG")
/// let token = try signer.makeProviderToken(teamID: "DEF123GHIJ")
/// request.headers["authorization"] = "bearer \(token)"
/// ```
public struct JWTSigner: Sendable {
    /// The signing key.
    public let key: ES256PrivateKey
    /// The `kid` written into every header.
    public let keyID: String
    /// Whether headers carry `"typ":"JWT"`.
    public let includesType: Bool
    /// `base64url(header) + "."`, fixed for the signer's life.
    private let encodedHeaderPrefix: String

    /// Creates a signer.
    ///
    /// - Parameters:
    ///   - key: The private key, for example from an APNs `.p8` file.
    ///   - keyID: The key's ID (10 characters for APNs).
    ///   - includesType: Add `"typ":"JWT"` to the header, as several APNs clients do.
    public init(key: ES256PrivateKey, keyID: String, includesType: Bool = false) {
        self.key = key
        self.keyID = keyID
        self.includesType = includesType
        var members: [(key: String, value: JSONValue)] = [("alg", "ES256"), ("kid", .string(keyID))]
        if includesType { members.append(("typ", "JWT")) }
        var header: [UInt8] = []
        JSONWriter.writeObject(members, into: &header)
        encodedHeaderPrefix = Base64URL.encode(header) + "."
    }

    /// Signs an arbitrary claims set (members written with sorted keys).
    ///
    /// - Throws: ``JWTError`` with code `.cryptoFailure` if OpenSSL fails.
    public func sign(claims: [String: JSONValue]) throws(JWTError) -> String {
        var payload: [UInt8] = []
        JSONWriter.write(.object(claims), into: &payload)
        return try sign(payloadJSON: payload)
    }

    /// Mints an APNs provider token: claims `{"iss":teamID,"iat":seconds}` followed by any
    /// extra claims in key order.
    ///
    /// - Parameters:
    ///   - teamID: The developer team ID, written as `iss`.
    ///   - issuedAt: Written as `iat` in whole seconds since 1970 (rounded down).
    ///   - extraClaims: More claims; they may not redefine `iss` or `iat`.
    /// - Throws: ``JWTError`` with code `.invalidClaims` if `extraClaims` holds `iss` or
    ///   `iat`, or `.cryptoFailure` if OpenSSL fails.
    public func makeProviderToken(
        teamID: String,
        issuedAt: Date = Date(),
        extraClaims: [String: JSONValue] = [:]
    ) throws(JWTError) -> String {
        if let clash = extraClaims.keys.first(where: { $0 == "iss" || $0 == "iat" }) {
            throw JWTError(.invalidClaims, "extraClaims may not contain \"\(clash)\"; pass it as a parameter")
        }
        let seconds = Int64(issuedAt.timeIntervalSince1970.rounded(.down))
        var members: [(key: String, value: JSONValue)] = [("iss", .string(teamID)), ("iat", .integer(seconds))]
        members += extraClaims.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) }
        var payload: [UInt8] = []
        JSONWriter.writeObject(members, into: &payload)
        return try sign(payloadJSON: payload)
    }

    private func sign(payloadJSON: [UInt8]) throws(JWTError) -> String {
        let signingInput = encodedHeaderPrefix + Base64URL.encode(payloadJSON)
        let signature: [UInt8]
        do {
            signature = try key.signature(for: signingInput.utf8)
        } catch {
            throw JWTError(.cryptoFailure, error.message, openSSLErrors: error.openSSLErrors)
        }
        return signingInput + "." + Base64URL.encode(signature)
    }
}

extension JWTSigner: CustomStringConvertible {
    /// Names the key ID, never the key.
    public var description: String { "JWTSigner(kid: \(keyID), alg: ES256)" }
}
