/// A strict RFC 8259 JSON parser over UTF-8 bytes.
///
/// It rejects duplicate object keys (so a document cannot say `"alg"` twice and mean two
/// things to two parsers), invalid UTF-8, unescaped control characters, trailing content,
/// and nesting deeper than a limit, so hostile input cannot exhaust the stack.
///
/// ```swift
/// let value = try JSONParser.parse(Array(#"{"aps":{"badge":1}}"#.utf8))
/// ```
public struct JSONParser: ~Copyable {
    /// Why a document was rejected, and the byte offset where that was found.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong, in the parser's own words only: never text from the document, so
        /// a server may hand it back to whoever sent the document (`"duplicate key"`).
        public let problem: String
        /// The document's text that ``message`` quotes (the repeated key), if any.
        public let quoted: String?
        /// The byte offset where the problem was found.
        public let offset: Int

        /// ``problem``, with the quoted text when there is some (`duplicate key "alg"`): for
        /// the document's own author, such as an operator reading a config file error. The
        /// text is quoted as a JSON string, escaped to be shown (``JSONStringEscaping/terminalSafe``).
        public var message: String {
            guard let quoted else { return problem }
            return problem + " " + JSONWriter.quoted(quoted, escaping: .terminalSafe)
        }
        public var description: String { "\(message) at byte \(offset)" }
    }

    /// The default nesting limit: deep enough for any real JWT or push payload.
    public static let defaultMaximumDepth = 32

    let input: UnsafeBufferPointer<UInt8>
    let maximumDepth: Int
    var position = 0

    init(input: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
        self.input = input
        self.maximumDepth = maximumDepth
    }

    /// Parses one complete JSON document.
    ///
    /// - Parameter maximumDepth: objects and arrays nested deeper than this are rejected.
    public static func parse(
        _ input: UnsafeBufferPointer<UInt8>, maximumDepth: Int = defaultMaximumDepth
    ) throws(Failure) -> JSONValue {
        var parser = JSONParser(input: input, maximumDepth: maximumDepth)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.position == input.count else { throw parser.failure("unexpected content after the JSON value") }
        return value
    }

    /// Parses one complete JSON document held in an array.
    public static func parse(_ bytes: [UInt8], maximumDepth: Int = defaultMaximumDepth) throws(Failure) -> JSONValue {
        try bytes.withUnsafeBufferPointer { buffer throws(Failure) in try parse(buffer, maximumDepth: maximumDepth) }
    }

    func failure(_ problem: String, quoting quoted: String? = nil) -> Failure {
        Failure(problem: problem, quoted: quoted, offset: position)
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while position < input.count {
            switch input[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    private mutating func parseValue(depth: Int) throws(Failure) -> JSONValue {
        guard position < input.count else { throw failure("unexpected end of JSON") }
        switch input[position] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw failure("unexpected character")
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(Failure) {
        let count = literal.utf8CodeUnitCount
        guard position + count <= input.count else { throw failure("invalid literal") }
        let bytes = literal.utf8Start
        for index in 0..<count where input[position + index] != bytes[index] {
            throw failure("invalid literal")
        }
        position += count
    }

    private mutating func parseObject(depth: Int) throws(Failure) -> JSONValue {
        guard depth <= maximumDepth else { throw failure("JSON nested too deeply") }
        position += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if position < input.count, input[position] == UInt8(ascii: "}") {
            position += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard position < input.count, input[position] == UInt8(ascii: "\"") else {
                throw failure("expected a string key")
            }
            let key = try parseString()
            skipWhitespace()
            guard position < input.count, input[position] == UInt8(ascii: ":") else { throw failure("expected ':'") }
            position += 1
            skipWhitespace()
            let value = try parseValue(depth: depth)
            // JWT headers and claims and most payload objects have 2 or 3 members: room for
            // 3 (4 buckets) avoids growing 1 -> 2 -> 4 without keeping 16 buckets per object
            // alive in every captured push.
            if members.isEmpty { members.reserveCapacity(3) }
            guard members.updateValue(value, forKey: key) == nil else {
                throw failure("duplicate key", quoting: key)
            }
            skipWhitespace()
            guard position < input.count else { throw failure("unterminated object") }
            if input[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            guard input[position] == UInt8(ascii: "}") else { throw failure("expected ',' or '}'") }
            position += 1
            return .object(members)
        }
    }

    private mutating func parseArray(depth: Int) throws(Failure) -> JSONValue {
        guard depth <= maximumDepth else { throw failure("JSON nested too deeply") }
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if position < input.count, input[position] == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth))
            skipWhitespace()
            guard position < input.count else { throw failure("unterminated array") }
            if input[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            guard input[position] == UInt8(ascii: "]") else { throw failure("expected ',' or ']'") }
            position += 1
            return .array(elements)
        }
    }

    mutating func parseString() throws(Failure) -> String {
        position += 1
        let start = position
        // Fast path: no escapes, so the bytes are the string. The scan goes eight bytes per
        // step and notes whether any was non-ASCII, so plain ASCII skips the UTF-8 check.
        if let base = input.baseAddress {
            var skipped: UInt64 = 0
            position = JSONTextScan.firstSpecial(base, from: start, count: input.count, controlBelow: 0x20, skipped: &skipped)
            if position < input.count {
                let byte = base[position]
                if byte == UInt8(ascii: "\"") {
                    let slice = UnsafeBufferPointer(start: base + start, count: position - start)
                    position += 1
                    if !JSONTextScan.sawNonASCII(skipped) { return Self.asciiString(slice) }
                    guard let text = Self.validatedString(slice) else { throw failure("invalid UTF-8 in string") }
                    return text
                }
                if byte < 0x20 { throw failure("unescaped control character in string") }
            }
        }
        var bytes = Array(input[start..<position])
        while position < input.count {
            let byte = input[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                let text = bytes.withUnsafeBufferPointer { Self.validatedString($0) }
                guard let text else { throw failure("invalid UTF-8 in string") }
                return text
            case UInt8(ascii: "\\"):
                position += 1
                guard position < input.count else { throw failure("unterminated escape") }
                let escape = input[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes.append(escape)
                case UInt8(ascii: "b"): bytes.append(0x08)
                case UInt8(ascii: "f"): bytes.append(0x0C)
                case UInt8(ascii: "n"): bytes.append(0x0A)
                case UInt8(ascii: "r"): bytes.append(0x0D)
                case UInt8(ascii: "t"): bytes.append(0x09)
                case UInt8(ascii: "u"): try appendUnicodeEscape(to: &bytes)
                default: throw failure("invalid escape")
                }
            case 0..<0x20:
                throw failure("unescaped control character in string")
            default:
                bytes.append(byte)
                position += 1
            }
        }
        throw failure("unterminated string")
    }

    private mutating func parseHex4() throws(Failure) -> UInt32 {
        guard position + 4 <= input.count else { throw failure("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = input[position]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw failure("invalid \\u escape")
            }
            value = value << 4 | digit
            position += 1
        }
        return value
    }

    private mutating func appendUnicodeEscape(to bytes: inout [UInt8]) throws(Failure) {
        var scalarValue = try parseHex4()
        if (0xD800...0xDBFF).contains(scalarValue) {
            guard position + 2 <= input.count, input[position] == UInt8(ascii: "\\"),
                input[position + 1] == UInt8(ascii: "u")
            else { throw failure("unpaired surrogate in \\u escape") }
            position += 2
            let low = try parseHex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw failure("unpaired surrogate in \\u escape") }
            scalarValue = 0x10000 + ((scalarValue - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let scalar = Unicode.Scalar(scalarValue) else { throw failure("unpaired surrogate in \\u escape") }
        bytes.append(contentsOf: String(Character(scalar)).utf8)
    }

    mutating func parseNumber() throws(Failure) -> JSONValue {
        let start = position
        if input[position] == UInt8(ascii: "-") { position += 1 }
        guard position < input.count else { throw failure("invalid number") }
        if input[position] == UInt8(ascii: "0") {
            position += 1
        } else if isDigit(input[position]) {
            while position < input.count, isDigit(input[position]) { position += 1 }
        } else {
            throw failure("invalid number")
        }
        var isInteger = true
        if position < input.count, input[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard position < input.count, isDigit(input[position]) else { throw failure("invalid number") }
            while position < input.count, isDigit(input[position]) { position += 1 }
        }
        if position < input.count, input[position] == UInt8(ascii: "e") || input[position] == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if position < input.count, input[position] == UInt8(ascii: "+") || input[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard position < input.count, isDigit(input[position]) else { throw failure("invalid number") }
            while position < input.count, isDigit(input[position]) { position += 1 }
        }
        if isInteger, let integer = Self.integerValue(UnsafeBufferPointer(rebasing: input[start..<position])) {
            return .integer(integer)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: input[start..<position]), as: UTF8.self)
        guard let double = Double(text), double.isFinite else { throw failure("number out of range") }
        return .double(double)
    }

    /// The value of an optionally negative run of decimal digits, or `nil` on overflow.
    private static func integerValue(_ digits: UnsafeBufferPointer<UInt8>) -> Int64? {
        var index = 0
        let negative = digits.first == UInt8(ascii: "-")
        if negative { index = 1 }
        var value: Int64 = 0
        while index < digits.count {
            let digit = Int64(digits[index] &- UInt8(ascii: "0"))
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            if overflow1 || overflow2 { return nil }
            value = next
            index += 1
        }
        return value
    }

    /// The string for bytes known to be ASCII.
    ///
    /// `String(decoding:as:)` checks them again and, for a short string, costs several
    /// times more than the copy; initialising the string's own storage checks a short
    /// string for ASCII on its two words.
    @inline(__always)
    static func asciiString(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count) { storage in
            guard let target = storage.baseAddress, let source = bytes.baseAddress else { return 0 }
            target.initialize(from: source, count: bytes.count)
            return bytes.count
        }
    }

    /// The string for UTF-8 bytes, or `nil` if they are not valid UTF-8.
    ///
    /// `String(decoding:as:)` repairs invalid input with U+FFFD; comparing the result with
    /// the input detects any repair. This stays on the specialised, allocation-light path
    /// that JWT headers and claims (almost always ASCII) need.
    private static func validatedString(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        var isASCII = true
        for byte in bytes where byte >= 0x80 {
            isASCII = false
            break
        }
        if isASCII { return text }
        return text.utf8.elementsEqual(bytes) ? text : nil
    }

    @inline(__always)
    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
