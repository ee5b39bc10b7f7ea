/// A token whose ES256 signature verified under the key its `kid` selected.
public struct VerifiedJWT: Sendable, Hashable {
    /// The `kid` whose key verified the signature.
    public let keyID: String
    /// The decoded token.
    public let token: DecodedJWT

    /// The decoded header.
    public var header: JOSEHeader { token.header }
    /// The decoded claims.
    public var claims: JWTClaims { token.claims }
}
