import StrictJSON

/// One log line being built, in swift-log's stream layout:
/// `<time> <level> <label>: key=value ... <message>`.
///
/// One event is always one line, and its fields stay its own: a value may come from a
/// sender (an APNs reason, a topic, an error's text), so a value that is not one plain word
/// is written quoted and escaped as a JSON string (``StrictJSON/JSONStringEscaping/terminalSafe``):
/// `apns.reason="Bad\nINJECTED gateway.status=200"`, never a line break or a field of its
/// own. A plain word, as nearly every value is (a status, an id, a masked token such as
/// `abab…abab`, a reason's wire name), is written as it is. A `String` message has its
/// control characters and those a terminal acts on escaped the same way, unquoted; keys,
/// the label and `StaticString` messages are the program's own and written as they are.
///
/// Built as bytes in one ``StrictJSON/TextBuffer``: a server may log a line per request, and
/// String or `[UInt8]` appends cost several times more than copying UTF-8 into room reserved
/// once. See ``Logger/log(level:_:build:)``.
public struct LogLine: ~Copyable {
    private var bytes = TextBuffer(capacity: 256)

    init(level: Logger.Level, label: String, metadata: [String: String]) {
        Logger.appendTimestamp(to: &bytes)
        bytes.append(UInt8(ascii: " "))
        bytes.append(level.rawValue)
        bytes.append(UInt8(ascii: " "))
        bytes.append(label)
        bytes.append(UInt8(ascii: ":"))
        if !metadata.isEmpty {
            for (key, value) in metadata.sorted(by: { $0.key < $1.key }) { field(name: key, value) }
        }
    }

    /// Appends ` key=value`.
    public mutating func field(_ key: StaticString, _ value: String) {
        value.withBorrowedUTF8 { field(key, utf8: $0) }
    }

    /// Appends ` key=value` for a value already in UTF-8, wherever it lies (a stack buffer,
    /// say), so that a caller need not build a `String` for it.
    public mutating func field(_ key: StaticString, utf8 value: UnsafeBufferPointer<UInt8>) {
        appendKey(key)
        appendValue(value)
    }

    /// Appends ` key=value` for a whole number, without building a `String` for it.
    public mutating func field(_ key: StaticString, _ value: Int) {
        appendKey(key)
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        bytes.appendDecimal(UInt64(value.magnitude))
    }

    /// Appends ` key=value` for a whole number, without building a `String` for it.
    public mutating func field(_ key: StaticString, _ value: UInt64) {
        appendKey(key)
        bytes.appendDecimal(value)
    }

    /// Appends ` key=value` for metadata, whose keys are only known at run time.
    mutating func field(name: String, _ value: String) {
        bytes.append(UInt8(ascii: " "))
        bytes.append(name)
        bytes.append(UInt8(ascii: "="))
        value.withBorrowedUTF8 { appendValue($0) }
    }

    /// A value as it is when it is one plain word, else quoted and escaped as a JSON string.
    private mutating func appendValue(_ value: UnsafeBufferPointer<UInt8>) {
        if Self.isPlainWord(value) {
            bytes.append(value)
            return
        }
        // Rare (an error's text, a sender's odd value): a String and an array are fine here.
        var quoted: [UInt8] = []
        JSONWriter.writeString(String(decoding: value, as: UTF8.self), into: &quoted, escaping: .terminalSafe)
        bytes.append(quoted)
    }

    /// Whether `value` may stand unquoted after `key=`: valid UTF-8 without a space, a
    /// control character, `"`, `\` or a character that ``StrictJSON/JSONStringEscaping/terminalSafe``
    /// escapes (C1 and bidirectional controls, U+2028, U+2029). Empty counts as plain (`key=`).
    static func isPlainWord(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        var ascii = true
        for byte in value {
            if byte <= 0x20 || byte == 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return false }
            if byte >= 0x80 { ascii = false }
        }
        if ascii { return true }
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = value.makeIterator()
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                if JSONStringEscaping.terminalSafe.escapes(Unicode.UTF8.decode(encoded)) { return false }
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    /// `message` with each control character, and each character a terminal acts on or that
    /// reorders the text, escaped as in a JSON string (`\n`, `\u001b`, `\u202e`); the rest,
    /// quotes and spaces included, as it is.
    private mutating func appendMessage(_ message: String) {
        message.withBorrowedUTF8 { utf8 in
            guard utf8.contains(where: { $0 < 0x20 || $0 >= 0x7F }) else {
                bytes.append(utf8)
                return
            }
            var parser = Unicode.UTF8.ForwardParser()
            var iterator = utf8.makeIterator()
            // A String's UTF-8 is valid: every parse is a scalar.
            while case .valid(let encoded) = parser.parseScalar(from: &iterator) {
                let scalar = Unicode.UTF8.decode(encoded)
                if JSONStringEscaping.terminalSafe.escapes(scalar) {
                    // Rare (a message with a control character): an array per escape is fine.
                    var escape: [UInt8] = []
                    JSONWriter.writeEscape(of: scalar, into: &escape)
                    bytes.append(escape)
                } else {
                    for byte in encoded { bytes.append(byte) }
                }
            }
        }
    }

    /// ` key=`: field keys are constants (`StaticString`), so this is one copy of known length
    /// where a `String` key was first asked for its UTF-8; a line per request has several.
    @inline(__always)
    private mutating func appendKey(_ key: StaticString) {
        let length = key.utf8CodeUnitCount
        bytes.write(atMost: length + 2) { out in
            out[0] = UInt8(ascii: " ")
            (out + 1).initialize(from: key.utf8Start, count: length)
            out[length + 1] = UInt8(ascii: "=")
            return length + 2
        }
    }

    /// The finished line, the message (escaped, see ``LogLine``) and a newline after the
    /// fields, handed to `body`.
    consuming func finish<Result>(_ message: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        bytes.append(UInt8(ascii: " "))
        appendMessage(message)
        bytes.append(UInt8(ascii: "\n"))
        return bytes.withUnsafeBytes(body)
    }

    /// The finished line, the message and a newline after the fields, handed to `body`.
    consuming func finish<Result>(_ message: StaticString, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        bytes.append(UInt8(ascii: " "))
        bytes.append(message)
        bytes.append(UInt8(ascii: "\n"))
        return bytes.withUnsafeBytes(body)
    }
}
