/// What ``JSONParser/outline(_:maximumDepth:member:)`` learned about a document: its
/// top-level type, and one top-level member read one level deep.
public struct JSONOutline: Sendable, Hashable {
    /// The top-level value's type, as ``JSONValue/typeName`` names it ("object", "integer", ...).
    public var typeName: String
    /// The requested member's value, when the document is an object that has it.
    public var member: JSONShallowValue? {
        if let memberFields { return .object(keys: memberFields.members.map(\.key)) }
        return scalarMember
    }
    /// The requested member's own members, when it is an object.
    public private(set) var memberFields: JSONShallowObject?
    /// The requested member when it is not an object (an object is `memberFields`).
    private var scalarMember: JSONShallowValue?

    /// Whether the document is an object.
    public var isObject: Bool { typeName == JSONTypeName.object }

    /// The outline of a fully parsed document.
    init(_ value: JSONValue, member name: String) {
        typeName = value.typeName
        guard case .object(let members) = value, let member = members[name] else { return }
        if case .object(let fields) = member {
            memberFields = JSONShallowObject(fields)
        } else {
            scalarMember = JSONShallowValue(member)
        }
    }

    init(typeName: String, member: JSONShallowValue? = nil, memberFields: JSONShallowObject? = nil) {
        self.typeName = typeName
        scalarMember = member
        self.memberFields = memberFields
    }
}

extension JSONParser {
    /// Checks a document as strictly as ``parse(_:maximumDepth:)`` (it accepts and rejects
    /// the same documents, with the same failures) while reading only one top-level member,
    /// one level deep.
    ///
    /// A push payload is checked on every push but only its `aps` member is read; building
    /// the rest as dictionaries and strings would cost more than the whole check.
    ///
    /// ```swift
    /// let outline = try JSONParser.outline(body, member: "aps")
    /// if outline.typeName == "object", let aps = outline.memberFields, aps["badge"] == .integer(1) { ... }
    /// ```
    public static func outline(
        _ input: UnsafeBufferPointer<UInt8>, maximumDepth: Int = defaultMaximumDepth, member: String
    ) throws(Failure) -> JSONOutline {
        var scanner = JSONParser(input: input, maximumDepth: maximumDepth)
        var wanted = member
        let outline: JSONOutline? = wanted.withUTF8 { wantedBytes in
            withUnsafeTemporaryAllocation(of: ScannedKey.self, capacity: keyStackCapacity) { storage in
                var keys = KeyStack(startingIn: storage)
                do {
                    scanner.skipWhitespace()
                    let outline = try scanner.outlineValue(keys: &keys, wanted: wantedBytes)
                    scanner.skipWhitespace()
                    return scanner.position == input.count ? outline : nil
                } catch {
                    return nil
                }
            }
        }
        if let outline { return outline }
        // Rejected: the full parser says why, with its exact message and offset.
        return JSONOutline(try parse(input, maximumDepth: maximumDepth), member: member)
    }

    /// How many keys the walk holds on the stack before it moves them to the heap: the keys
    /// of all objects open at once (a push payload has a few dozen at most).
    private static let keyStackCapacity = 32

    /// Outlines one complete JSON document held in an array.
    public static func outline(
        _ bytes: [UInt8], maximumDepth: Int = defaultMaximumDepth, member: String
    ) throws(Failure) -> JSONOutline {
        try bytes.withUnsafeBufferPointer { buffer throws(Failure) in
            try outline(buffer, maximumDepth: maximumDepth, member: member)
        }
    }

    /// Checks the top-level value; an object's member named `wanted` is read one level deep
    /// as the check goes through it, and every other value is only checked.
    private mutating func outlineValue(keys: inout KeyStack, wanted: UnsafeBufferPointer<UInt8>) throws(Failure) -> JSONOutline {
        guard position < input.count else { throw failure("unexpected end of JSON") }
        switch input[position] {
        case UInt8(ascii: "{"):
            var reader = WantedMemberReader(wanted: wanted)
            try walkObject(depth: 1, keys: &keys, reader: &reader)
            return JSONOutline(typeName: JSONTypeName.object, member: reader.member, memberFields: reader.memberFields)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return JSONOutline(typeName: try parseNumber().typeName)
        case UInt8(ascii: "["):
            try skipValue(depth: 0, keys: &keys)
            return JSONOutline(typeName: JSONTypeName.array)
        case UInt8(ascii: "\""):
            try skipValue(depth: 0, keys: &keys)
            return JSONOutline(typeName: JSONTypeName.string)
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            try skipValue(depth: 0, keys: &keys)
            return JSONOutline(typeName: JSONTypeName.boolean)
        default:
            try skipValue(depth: 0, keys: &keys)
            return JSONOutline(typeName: JSONTypeName.null)
        }
    }

    /// Reads the value at `position`, the value of a member of an object at `depth`, one
    /// level deep, checking it (and what lies deeper) as `parseValue` would.
    fileprivate mutating func readShallowValue(depth: Int, keys: inout KeyStack) throws(Failure) -> JSONShallowValue {
        guard position < input.count else { throw failure("unexpected end of JSON") }
        switch input[position] {
        case UInt8(ascii: "{"):
            var reader = KeyNamesReader()
            try walkObject(depth: depth + 1, keys: &keys, reader: &reader)
            return .object(keys: reader.names)
        case UInt8(ascii: "["):
            try skipArray(depth: depth + 1, keys: &keys)
            return .array
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            switch try parseNumber() {
            case .integer(let number): return .integer(number)
            case .double(let number): return .double(number)
            default: return .null
            }
        default: throw failure("unexpected character")
        }
    }
}

/// The top-level object's walk: reads the member named `wanted` one level deep, and only
/// checks the others.
private struct WantedMemberReader: JSONMemberReader {
    let wanted: UnsafeBufferPointer<UInt8>
    var member: JSONShallowValue?
    var memberFields: JSONShallowObject?

    mutating func readValue(
        of key: JSONParser.ScannedKey, inObjectAt depth: Int, parser: inout JSONParser, keys: inout JSONParser.KeyStack
    ) throws(JSONParser.Failure) {
        guard parser.isKey(key, named: wanted) else { return try parser.skipValue(depth: depth, keys: &keys) }
        guard parser.position < parser.input.count, parser.input[parser.position] == UInt8(ascii: "{") else {
            member = try parser.readShallowValue(depth: depth, keys: &keys)
            return
        }
        var fields = FieldsReader()
        try parser.walkObject(depth: depth + 1, keys: &keys, reader: &fields)
        memberFields = JSONShallowObject(members: fields.members)
    }
}

/// The wanted member's walk: keeps each member, read one level deep.
private struct FieldsReader: JSONMemberReader {
    var members: [JSONShallowObject.Member] = []

    mutating func readValue(
        of key: JSONParser.ScannedKey, inObjectAt depth: Int, parser: inout JSONParser, keys: inout JSONParser.KeyStack
    ) throws(JSONParser.Failure) {
        if members.isEmpty { members.reserveCapacity(8) }
        let value = try parser.readShallowValue(depth: depth, keys: &keys)
        members.append(JSONShallowObject.Member(key: parser.text(of: key), value: value))
    }
}

/// The walk of an object inside the wanted member: keeps its keys, and only checks its values.
private struct KeyNamesReader: JSONMemberReader {
    var names: [String] = []

    mutating func readValue(
        of key: JSONParser.ScannedKey, inObjectAt depth: Int, parser: inout JSONParser, keys: inout JSONParser.KeyStack
    ) throws(JSONParser.Failure) {
        if names.isEmpty { names.reserveCapacity(4) }
        names.append(parser.text(of: key))
        try parser.skipValue(depth: depth, keys: &keys)
    }
}
