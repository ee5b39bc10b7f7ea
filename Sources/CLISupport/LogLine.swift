import StrictJSON

/// One log line being built, in swift-log's stream layout:
/// `<time> <level> <label>: key=value ... <message>`.
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
        bytes.append(value)
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
        bytes.append(value)
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

    /// The finished line, the message and a newline after the fields, handed to `body`.
    consuming func finish<Result>(_ message: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        bytes.append(UInt8(ascii: " "))
        bytes.append(message)
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
