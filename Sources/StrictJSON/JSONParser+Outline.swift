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
    /// the rest as dictionaries and strings cost more than the whole check.
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
            var keys: [ScannedKey] = []
            keys.reserveCapacity(16)
            var memberRange: Range<Int>?
            do {
                scanner.skipWhitespace()
                let typeName = try scanner.skipValue(depth: 0, keys: &keys, wanted: wantedBytes, found: &memberRange)
                scanner.skipWhitespace()
                guard scanner.position == input.count else { return nil }
                guard let memberRange else { return JSONOutline(typeName: typeName) }
                var reader = JSONParser(input: input, maximumDepth: maximumDepth)
                reader.position = memberRange.lowerBound
                let (member, fields) = try reader.readShallow(keys: &keys)
                return JSONOutline(typeName: typeName, member: member, memberFields: fields)
            } catch {
                return nil
            }
        }
        if let outline { return outline }
        // Rejected: the full parser says why, with its exact message and offset.
        return JSONOutline(try parse(input, maximumDepth: maximumDepth), member: member)
    }

    /// Outlines one complete JSON document held in an array.
    public static func outline(
        _ bytes: [UInt8], maximumDepth: Int = defaultMaximumDepth, member: String
    ) throws(Failure) -> JSONOutline {
        try bytes.withUnsafeBufferPointer { buffer throws(Failure) in
            try outline(buffer, maximumDepth: maximumDepth, member: member)
        }
    }

    /// Reads the (already checked) value at `position`: an object's members one level
    /// deep, or any other value.
    private mutating func readShallow(keys: inout [ScannedKey]) throws(Failure) -> (JSONShallowValue?, JSONShallowObject?) {
        guard position < input.count, input[position] == UInt8(ascii: "{") else {
            return (try readShallowValue(keys: &keys), nil)
        }
        position += 1
        var members: [JSONShallowObject.Member] = []
        members.reserveCapacity(8)
        skipWhitespace()
        while position < input.count, input[position] != UInt8(ascii: "}") {
            skipWhitespace()
            let key = try parseString()
            skipWhitespace()
            position += 1  // ':'
            skipWhitespace()
            members.append(JSONShallowObject.Member(key: key, value: try readShallowValue(keys: &keys)))
            skipWhitespace()
            if position < input.count, input[position] == UInt8(ascii: ",") { position += 1 }
        }
        return (nil, JSONShallowObject(members: members))
    }

    /// Reads the (already checked) value at `position` one level deep.
    private mutating func readShallowValue(keys: inout [ScannedKey]) throws(Failure) -> JSONShallowValue {
        var unused: Range<Int>?
        switch input[position] {
        case UInt8(ascii: "{"):
            position += 1
            var objectKeys: [String] = []
            skipWhitespace()
            while position < input.count, input[position] != UInt8(ascii: "}") {
                skipWhitespace()
                objectKeys.append(try parseString())
                skipWhitespace()
                position += 1  // ':'
                skipWhitespace()
                _ = try skipValue(depth: 1, keys: &keys, wanted: UnsafeBufferPointer(start: nil, count: 0), found: &unused)
                skipWhitespace()
                if position < input.count, input[position] == UInt8(ascii: ",") { position += 1 }
            }
            position += 1
            return .object(keys: objectKeys)
        case UInt8(ascii: "["):
            _ = try skipValue(depth: 1, keys: &keys, wanted: UnsafeBufferPointer(start: nil, count: 0), found: &unused)
            return .array
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): position += 4; return .bool(true)
        case UInt8(ascii: "f"): position += 5; return .bool(false)
        case UInt8(ascii: "n"): position += 4; return .null
        default:
            switch try parseNumber() {
            case .integer(let number): return .integer(number)
            case .double(let number): return .double(number)
            default: return .null
            }
        }
    }

    /// A key seen in an object being skipped: where its text lies between the quotes, and
    /// whether its bytes alone decide equality. They do for plain ASCII; a key with escapes
    /// or other characters is compared as a `String`, as the parser's dictionary compares
    /// it (canonically equivalent spellings, such as U+212A and "K", are the same key).
    struct ScannedKey {
        var start: Int
        var end: Int
        var isEscaped: Bool
        var isPlainASCII: Bool
    }

    /// Past this many keys in one object, duplicates are found by hashing, not by comparing
    /// each key with every earlier one.
    private static let linearKeyLimit = 16

    /// Skips one value, checking it as `parseValue` would; returns its type name. Records
    /// where the top-level member named `wanted` lies.
    private mutating func skipValue(
        depth: Int, keys: inout [ScannedKey], wanted: UnsafeBufferPointer<UInt8>, found: inout Range<Int>?
    ) throws(Failure) -> String {
        guard position < input.count else { throw failure("unexpected end of JSON") }
        switch input[position] {
        case UInt8(ascii: "{"):
            try skipObject(depth: depth + 1, keys: &keys, wanted: wanted, found: &found)
            return JSONTypeName.object
        case UInt8(ascii: "["):
            try skipArray(depth: depth + 1, keys: &keys, wanted: wanted, found: &found)
            return JSONTypeName.array
        case UInt8(ascii: "\""):
            _ = try skipString()
            return JSONTypeName.string
        case UInt8(ascii: "t"): try expectLiteral("true"); return JSONTypeName.boolean
        case UInt8(ascii: "f"): try expectLiteral("false"); return JSONTypeName.boolean
        case UInt8(ascii: "n"): try expectLiteral("null"); return JSONTypeName.null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber().typeName
        default: throw failure("unexpected character")
        }
    }

    private mutating func skipObject(
        depth: Int, keys: inout [ScannedKey], wanted: UnsafeBufferPointer<UInt8>, found: inout Range<Int>?
    ) throws(Failure) {
        guard depth <= maximumDepth else { throw failure("JSON nested too deeply") }
        position += 1
        // This object's keys sit at the end of `keys`, above those of the objects around it.
        let firstKey = keys.count
        defer { keys.removeSubrange(firstKey...) }
        // This object's keys as text, once it has too many to compare pairwise.
        var seen: Set<String>?
        skipWhitespace()
        if position < input.count, input[position] == UInt8(ascii: "}") {
            position += 1
            return
        }
        while true {
            skipWhitespace()
            guard position < input.count, input[position] == UInt8(ascii: "\"") else {
                throw failure("expected a string key")
            }
            let key = try skipString()
            skipWhitespace()
            guard position < input.count, input[position] == UInt8(ascii: ":") else { throw failure("expected ':'") }
            position += 1
            skipWhitespace()
            let valueStart = position
            _ = try skipValue(depth: depth, keys: &keys, wanted: wanted, found: &found)
            if seen == nil, keys.count - firstKey >= Self.linearKeyLimit {
                seen = Set(keys[firstKey...].map { text(of: $0) })
            }
            if let inserted = seen?.insert(text(of: key)).inserted {
                guard inserted else { throw failure("duplicate key") }
            } else {
                for index in firstKey..<keys.count where isSameKey(keys[index], key) {
                    throw failure("duplicate key")
                }
            }
            if depth == 1, isKey(key, named: wanted) { found = valueStart..<position }
            keys.append(key)
            skipWhitespace()
            guard position < input.count else { throw failure("unterminated object") }
            if input[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            guard input[position] == UInt8(ascii: "}") else { throw failure("expected ',' or '}'") }
            position += 1
            return
        }
    }

    private mutating func skipArray(
        depth: Int, keys: inout [ScannedKey], wanted: UnsafeBufferPointer<UInt8>, found: inout Range<Int>?
    ) throws(Failure) {
        guard depth <= maximumDepth else { throw failure("JSON nested too deeply") }
        position += 1
        skipWhitespace()
        if position < input.count, input[position] == UInt8(ascii: "]") {
            position += 1
            return
        }
        while true {
            skipWhitespace()
            _ = try skipValue(depth: depth, keys: &keys, wanted: wanted, found: &found)
            skipWhitespace()
            guard position < input.count else { throw failure("unterminated array") }
            if input[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            guard input[position] == UInt8(ascii: "]") else { throw failure("expected ',' or ']'") }
            position += 1
            return
        }
    }

    /// Skips a string, checking it as `parseString` would. A string with escapes is decoded
    /// by `parseString` itself, so that escapes are checked in one place.
    private mutating func skipString() throws(Failure) -> ScannedKey {
        let quote = position
        let start = quote + 1
        guard let base = input.baseAddress else { throw failure("unterminated string") }
        var skipped: UInt64 = 0
        let index = JSONTextScan.firstSpecial(base, from: start, count: input.count, controlBelow: 0x20, skipped: &skipped)
        guard index < input.count else {
            position = index
            throw failure("unterminated string")
        }
        switch base[index] {
        case UInt8(ascii: "\""):
            position = index + 1
            // Only text with a byte of 0x80 or more can be invalid UTF-8.
            let isPlainASCII = !JSONTextScan.sawNonASCII(skipped)
            if !isPlainASCII, !UTF8Validation.isValid(UnsafeBufferPointer(start: base + start, count: index - start)) {
                throw failure("invalid UTF-8 in string")
            }
            return ScannedKey(start: start, end: index, isEscaped: false, isPlainASCII: isPlainASCII)
        case UInt8(ascii: "\\"):
            position = quote
            _ = try parseString()
            return ScannedKey(start: start, end: position - 1, isEscaped: true, isPlainASCII: false)
        default:
            position = index
            throw failure("unescaped control character in string")
        }
    }

    private func isSameKey(_ first: ScannedKey, _ second: ScannedKey) -> Bool {
        if first.isPlainASCII, second.isPlainASCII {
            return bytes(first.start..<first.end, equal: UnsafeBufferPointer(rebasing: input[second.start..<second.end]))
        }
        return text(of: first) == text(of: second)
    }

    private func isKey(_ key: ScannedKey, named name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !key.isPlainASCII else { return bytes(key.start..<key.end, equal: name) }
        return text(of: key) == String(decoding: name, as: UTF8.self)
    }

    /// The key's text; an escaped key is decoded again (it was checked when first seen).
    private func text(of key: ScannedKey) -> String {
        guard key.isEscaped else { return String(decoding: UnsafeBufferPointer(rebasing: input[key.start..<key.end]), as: UTF8.self) }
        var decoder = JSONParser(input: input, maximumDepth: maximumDepth)
        decoder.position = key.start - 1
        return (try? decoder.parseString()) ?? ""
    }

    private func bytes(_ range: Range<Int>, equal other: UnsafeBufferPointer<UInt8>) -> Bool {
        guard range.count == other.count else { return false }
        for offset in 0..<other.count where input[range.lowerBound + offset] != other[offset] { return false }
        return true
    }
}
