import StrictJSON

/// The members of a JSON object body, read with the contract's errors.
struct HermesFields {
    private let members: [String: JSONValue]

    init(bytes: [UInt8]) throws(HermesRequestError) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, maximumDepth: 8)
        } catch {
            throw .malformedJSON(error.description)
        }
        guard case .object(let members) = value else { throw .notAnObject }
        self.members = members
    }

    func requiredString(_ field: String) throws(HermesRequestError) -> String {
        guard let value = try optionalString(field) else { throw .missingField(field) }
        return value
    }

    /// The string at `field`; nil when absent or JSON `null`.
    func optionalString(_ field: String) throws(HermesRequestError) -> String? {
        switch members[field] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw .notAString(field)
        }
    }
}
