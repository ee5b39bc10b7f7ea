/// Why a plugin request to the gateway is malformed. The gateway answers these with 400
/// and `{"error":"invalid_request","message":…}`; the plugin gives up on them.
///
/// - Important: ``description`` is what the gateway answers with, so no case carries text
///   from the request: fields are named by the contract's own names, values by the rule
///   they break.
public enum HermesRequestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The body is not JSON; the detail says what is wrong and at which byte, and never
    /// quotes the body (the gateway sends it back in its answer).
    case malformedJSON(String)
    /// The body is JSON but not an object.
    case notAnObject
    /// A required field is absent.
    case missingField(String)
    /// A field has the wrong JSON type.
    case notAString(String)
    /// A field is present but its value breaks the contract.
    case invalidValue(field: String, reason: String)
    /// Neither `hmac` nor `capability` was sent.
    case missingAuthorization

    public var description: String {
        switch self {
        case .malformedJSON(let detail): "the body is not valid JSON (\(detail))"
        case .notAnObject: "the body must be a JSON object"
        case .missingField(let field): "`\(field)` is required"
        case .notAString(let field): "`\(field)` must be a string"
        case .invalidValue(let field, let reason): "`\(field)` \(reason)"
        case .missingAuthorization: "send either `hmac` or `capability`"
        }
    }
}
