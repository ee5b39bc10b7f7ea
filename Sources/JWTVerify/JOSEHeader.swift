import StrictJSON
/// The decoded header of a JSON Web Token, with every member as it arrived.
///
/// ```swift
/// let token = try DecodedJWT(parsing: jwt)
/// token.header.algorithm  // "ES256"
/// token.header.keyID      // "ABC123DEFG"
/// token.header.fields     // all members, including unknown ones
/// ```
public struct JOSEHeader: Sendable, Hashable {
    /// Every header member.
    public let fields: [String: JSONValue]

    /// Creates a header from its members.
    public init(fields: [String: JSONValue]) {
        self.fields = fields
    }

    /// `alg`, if present and a string.
    public var algorithm: String? { fields["alg"]?.stringValue }
    /// `kid`, if present and a string.
    public var keyID: String? { fields["kid"]?.stringValue }
    /// `typ`, if present and a string.
    public var type: String? { fields["typ"]?.stringValue }

    /// The header as compact JSON with sorted keys, for display.
    public var json: String { JSONValue.object(fields).description }
}
