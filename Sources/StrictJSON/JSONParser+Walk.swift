/// What ``JSONParser/walkObject(depth:keys:reader:)`` does with each member's value.
///
/// The walk checks an object's grammar and that its keys are unique; the reader consumes
/// each value, checking it as strictly as `parseValue` would, and keeps what it needs.
/// Readers are generic parameters, so each walk is specialised: no call through a witness
/// table or a closure per member.
protocol JSONMemberReader {
    /// Consumes the value at the parser's position, the value of `key` in an object at `depth`.
    mutating func readValue(
        of key: JSONParser.ScannedKey, inObjectAt depth: Int, parser: inout JSONParser, keys: inout JSONParser.KeyStack
    ) throws(JSONParser.Failure)
}

/// Checks and skips every value.
struct JSONSkippingReader: JSONMemberReader {
    @inline(__always)
    mutating func readValue(
        of key: JSONParser.ScannedKey, inObjectAt depth: Int, parser: inout JSONParser, keys: inout JSONParser.KeyStack
    ) throws(JSONParser.Failure) {
        try parser.skipValue(depth: depth, keys: &keys)
    }
}

extension JSONParser {
    /// A key seen in an object being walked: where its text lies between the quotes, and
    /// whether its bytes alone decide equality. They do for plain ASCII; a key with escapes
    /// or other characters is compared as a `String`, as the parser's dictionary compares
    /// it (canonically equivalent spellings, such as U+212A and "K", are the same key).
    struct ScannedKey {
        var start: Int
        var end: Int
        var isEscaped: Bool
        var isPlainASCII: Bool
    }

    /// The keys of the objects being walked, innermost object's last.
    ///
    /// It starts in storage the caller lends (a stack allocation: a push payload's keys fit
    /// in it, so the walk allocates nothing for them) and moves to the heap if it outgrows
    /// it. Leaving an object only lowers `count`.
    struct KeyStack: ~Copyable {
        private var base: UnsafeMutablePointer<ScannedKey>
        private var capacity: Int
        /// Whether `base` was allocated here (and is freed here), rather than lent.
        private var ownsStorage: Bool
        /// How many keys are on the stack.
        private(set) var count = 0

        /// A stack that starts in `storage`, which must outlive it.
        init(startingIn storage: UnsafeMutableBufferPointer<ScannedKey>) {
            if let lent = storage.baseAddress, storage.count > 0 {
                base = lent
                capacity = storage.count
                ownsStorage = false
            } else {
                capacity = 16
                base = UnsafeMutablePointer<ScannedKey>.allocate(capacity: capacity)
                ownsStorage = true
            }
        }

        deinit {
            if ownsStorage { base.deallocate() }
        }

        /// The key at `index`, which is below `count`.
        subscript(index: Int) -> ScannedKey {
            assert(index >= 0 && index < count)
            return base[index]
        }

        mutating func push(_ key: ScannedKey) {
            if count == capacity { grow() }
            (base + count).initialize(to: key)
            count += 1
        }

        /// Drops the keys above the first `newCount`.
        mutating func truncate(to newCount: Int) {
            count = newCount
        }

        private mutating func grow() {
            let larger = UnsafeMutablePointer<ScannedKey>.allocate(capacity: capacity * 2)
            larger.moveInitialize(from: base, count: count)
            if ownsStorage { base.deallocate() }
            base = larger
            capacity *= 2
            ownsStorage = true
        }
    }

    /// Past this many keys in one object, duplicates are found by hashing, not by comparing
    /// each key with every earlier one.
    private static let linearKeyLimit = 16

    /// Skips one value, checking it as `parseValue` would.
    mutating func skipValue(depth: Int, keys: inout KeyStack) throws(Failure) {
        guard position < input.count else { throw failure("unexpected end of JSON") }
        switch input[position] {
        case UInt8(ascii: "{"):
            var reader = JSONSkippingReader()
            try walkObject(depth: depth + 1, keys: &keys, reader: &reader)
        case UInt8(ascii: "["): try skipArray(depth: depth + 1, keys: &keys)
        case UInt8(ascii: "\""): _ = try skipString()
        case UInt8(ascii: "t"): try expectLiteral("true")
        case UInt8(ascii: "f"): try expectLiteral("false")
        case UInt8(ascii: "n"): try expectLiteral("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): _ = try parseNumber()
        default: throw failure("unexpected character")
        }
    }

    /// Walks the object at `position` (nested `depth` deep), checking it as `parseObject`
    /// would, and hands each member's value to `reader`.
    mutating func walkObject<Reader: JSONMemberReader>(
        depth: Int, keys: inout KeyStack, reader: inout Reader
    ) throws(Failure) {
        guard depth <= maximumDepth else { throw failure("JSON nested too deeply") }
        position += 1
        // This object's keys sit at the top of `keys`, above those of the objects around it.
        let firstKey = keys.count
        defer { keys.truncate(to: firstKey) }
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
            try reader.readValue(of: key, inObjectAt: depth, parser: &self, keys: &keys)
            if seen == nil, keys.count - firstKey >= Self.linearKeyLimit {
                var texts = Set<String>()
                for index in firstKey..<keys.count { texts.insert(text(of: keys[index])) }
                seen = texts
            }
            if let inserted = seen?.insert(text(of: key)).inserted {
                guard inserted else { throw failure("duplicate key") }
            } else {
                for index in firstKey..<keys.count where isSameKey(keys[index], key) {
                    throw failure("duplicate key")
                }
            }
            keys.push(key)
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

    /// Skips the array at `position` (nested `depth` deep), checking it as `parseArray` would.
    mutating func skipArray(depth: Int, keys: inout KeyStack) throws(Failure) {
        guard depth <= maximumDepth else { throw failure("JSON nested too deeply") }
        position += 1
        skipWhitespace()
        if position < input.count, input[position] == UInt8(ascii: "]") {
            position += 1
            return
        }
        while true {
            skipWhitespace()
            try skipValue(depth: depth, keys: &keys)
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
    @inline(__always)
    mutating func skipString() throws(Failure) -> ScannedKey {
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

    /// Whether `key` is the key spelled `name` (in UTF-8), by the parser's dictionary's
    /// notion of equality.
    @inline(__always)
    func isKey(_ key: ScannedKey, named name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !key.isPlainASCII else { return bytes(key.start..<key.end, equal: name) }
        return text(of: key) == String(decoding: name, as: UTF8.self)
    }

    /// The key's text; an escaped key is decoded again (it was checked when first seen).
    func text(of key: ScannedKey) -> String {
        guard key.isEscaped else {
            let bytes = UnsafeBufferPointer(rebasing: input[key.start..<key.end])
            return key.isPlainASCII ? Self.asciiString(bytes) : String(decoding: bytes, as: UTF8.self)
        }
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
