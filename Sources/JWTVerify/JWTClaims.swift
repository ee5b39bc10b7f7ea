import StrictJSON
/// The decoded claims set of a JSON Web Token, with every claim as it arrived.
///
/// Values keep their JSON type, so a numeric-string `iat` stays a string here; the APNs
/// verifier decides what it accepts.
public struct JWTClaims: Sendable, Hashable {
    /// Every claim.
    public let fields: [String: JSONValue]

    /// Creates a claims set from its members.
    public init(fields: [String: JSONValue]) {
        self.fields = fields
    }

    /// `iss`, if present and a string.
    public var issuer: String? { fields["iss"]?.stringValue }
    /// `iat` exactly as sent, if present.
    public var issuedAt: JSONValue? { fields["iat"] }

    /// The claims as compact JSON with sorted keys, for display.
    public var json: String { JSONValue.object(fields).description }
}
