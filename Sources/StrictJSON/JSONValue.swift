/// A JSON value, keeping the distinction between integer and fractional numbers that
/// APNs leniency rules depend on (`iat` as `1795958793` or `1795958793.0`; `badge` as `1` or `1.5`).
///
/// ```swift
/// let claims: [String: JSONValue] = ["iss": "ABC123DEFG", "iat": 1_795_958_793]
/// ```
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without fraction or exponent that fits in 64 bits.
    case integer(Int64)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object. Keys are unique: the parser rejects duplicates.
    case object([String: JSONValue])

    /// The string, if this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// A short name of the JSON type, for messages ("string", "integer", ...).
    public var typeName: String {
        switch self {
        case .null: JSONTypeName.null
        case .bool: JSONTypeName.boolean
        case .integer: JSONTypeName.integer
        case .double: JSONTypeName.number
        case .string: JSONTypeName.string
        case .array: JSONTypeName.array
        case .object: JSONTypeName.object
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    /// A JSON string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// A JSON integer.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// A JSON number with a fraction.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A JSON boolean.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// A JSON array.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// JSON `null`.
    public init(nilLiteral: ()) { self = .null }
    /// A JSON object; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension JSONValue: CustomStringConvertible {
    /// Compact JSON text with object keys sorted.
    public var description: String {
        var output: [UInt8] = []
        JSONWriter.write(self, into: &output)
        return String(decoding: output, as: UTF8.self)
    }
}
