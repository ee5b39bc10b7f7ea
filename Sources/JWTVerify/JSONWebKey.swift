import StrictJSON
/// The public members of a JSON Web Key (RFC 7517) that matter for ES256.
///
/// Private members such as `d` are never read or kept. The `description` names the key
/// type, curve and key ID but not the coordinates.
///
/// ```swift
/// let jwk = try JSONWebKey(json: #"{"kty":"EC","crv":"P-256","x":"…","y":"…","kid":"ABC123DEFG"}"#)
/// let key = try ES256PublicKey(jwk: jwk)
/// ```
public struct JSONWebKey: Sendable, Hashable {
    /// `kty`, for example `"EC"`.
    public var keyType: String
    /// `crv`, for example `"P-256"`.
    public var curve: String?
    /// `x`, base64url.
    public var x: String?
    /// `y`, base64url.
    public var y: String?
    /// `kid`.
    public var keyID: String?

    /// Creates a JWK from its members.
    public init(keyType: String, curve: String?, x: String?, y: String?, keyID: String? = nil) {
        self.keyType = keyType
        self.curve = curve
        self.x = x
        self.y = y
        self.keyID = keyID
    }

    /// Parses JWK JSON text.
    ///
    /// - Throws: ``ES256KeyError`` with code `.invalidJWK` when the text is not a JSON
    ///   object, `kty` is missing, or a member has the wrong JSON type.
    public init(json: String) throws(ES256KeyError) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(Array(json.utf8))
        } catch {
            throw ES256KeyError(.invalidJWK, "the JWK is not valid JSON: \(error.message) at byte \(error.offset)")
        }
        guard case .object(let members) = value else {
            throw ES256KeyError(.invalidJWK, "a JWK must be a JSON object, found \(value.typeName)")
        }
        func text(_ name: String) throws(ES256KeyError) -> String? {
            guard let member = members[name] else { return nil }
            guard let string = member.stringValue else {
                throw ES256KeyError(.invalidJWK, "JWK member \"\(name)\" must be a string, found \(member.typeName)")
            }
            return string
        }
        guard let keyType = try text("kty") else {
            throw ES256KeyError(.invalidJWK, "the JWK has no \"kty\" member")
        }
        self.init(keyType: keyType, curve: try text("crv"), x: try text("x"), y: try text("y"), keyID: try text("kid"))
    }

    /// Compact JSON text of the key.
    public var json: String {
        var members: [(key: String, value: JSONValue)] = [("kty", .string(keyType))]
        if let curve { members.append(("crv", .string(curve))) }
        if let x { members.append(("x", .string(x))) }
        if let y { members.append(("y", .string(y))) }
        if let keyID { members.append(("kid", .string(keyID))) }
        var output: [UInt8] = []
        JSONWriter.writeObject(members, into: &output)
        return String(decoding: output, as: UTF8.self)
    }
}

extension JSONWebKey: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Shows `kty`, `crv` and `kid`, never the coordinates.
    public var description: String {
        "JSONWebKey(kty: \(keyType), crv: \(curve ?? "-"), kid: \(keyID ?? "-"))"
    }
    /// The same as `description`: no key material, even in the debugger.
    public var debugDescription: String { description }
    /// Shows `kty`, `crv` and `kid` only.
    public var customMirror: Mirror {
        Mirror(self, children: ["keyType": keyType, "curve": curve as Any, "keyID": keyID as Any], displayStyle: .struct)
    }
}
