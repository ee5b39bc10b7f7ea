import StrictJSON

/// What the capture keeps of a provider token: its decoded parts and a fingerprint, never
/// the token text or its signature.
///
/// A bearer token is a credential that stays valid for up to an hour, and capture files
/// end up in CI artifacts, so only what is needed to debug authentication is kept.
public struct CaptureTokenInfo: Sendable, Hashable {
    /// The decoded JOSE header (`alg`, `kid`, ...), if the token got that far.
    public var header: JSONValue?
    /// The decoded claims (`iss`, `iat`, ...), if the token got that far.
    public var claims: JSONValue?
    /// The first 16 hex digits of the token's SHA-256: tells tokens apart without storing them.
    public var fingerprint: String?

    /// Creates token information; every part is optional because validation may stop early.
    public init(header: JSONValue? = nil, claims: JSONValue? = nil, fingerprint: String? = nil) {
        self.header = header
        self.claims = claims
        self.fingerprint = fingerprint
    }
}
