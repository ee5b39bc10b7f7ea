/// A JSON value read one level deep: scalars with their values, containers with only their
/// type (and an object's keys).
///
/// Rules that look at the members of one object (the `aps` dictionary of a push) need no
/// more, and reading no deeper avoids building dictionaries that nobody walks.
public enum JSONShallowValue: Sendable, Hashable {
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
    /// An array, not read.
    case array
    /// An object: its keys, without their values (in document order when read by
    /// ``JSONParser/outline(_:maximumDepth:member:)``, in no set order from a parsed tree).
    case object(keys: [String])

    /// The shallow reading of a fully parsed value.
    public init(_ value: JSONValue) {
        switch value {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .integer(let number): self = .integer(number)
        case .double(let number): self = .double(number)
        case .string(let text): self = .string(text)
        case .array: self = .array
        case .object(let members): self = .object(keys: Array(members.keys))
        }
    }

    /// The JSON type's name, as ``JSONValue/typeName`` gives it ("string", "integer", ...).
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

/// An object's members, each read one level deep (see ``JSONShallowValue``).
public struct JSONShallowObject: Sendable, Hashable {
    /// One member.
    public struct Member: Sendable, Hashable {
        public var key: String
        public var value: JSONShallowValue
    }

    /// The members (in document order when read from text); keys are unique.
    public var members: [Member]

    /// The shallow reading of a fully parsed object's members.
    public init(_ members: [String: JSONValue]) {
        self.members = members.map { Member(key: $0.key, value: JSONShallowValue($0.value)) }
    }

    init(members: [Member]) {
        self.members = members
    }

    /// The value of the member named `key`, if there is one. Objects read this way are
    /// small, so a linear search beats hashing.
    public subscript(key: String) -> JSONShallowValue? {
        for member in members where member.key == key { return member.value }
        return nil
    }
}
