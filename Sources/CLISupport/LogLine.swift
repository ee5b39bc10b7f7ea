/// One log line being built, in swift-log's stream layout:
/// `<time> <level> <label>: key=value ... <message>`.
///
/// Built as bytes in one buffer: a server may log a line per request, and String appends
/// cost several times more than copying UTF-8. See ``Logger/log(level:_:build:)``.
public struct LogLine {
    private var bytes: [UInt8] = []

    init(level: Logger.Level, label: String, metadata: [String: String]) {
        bytes.reserveCapacity(256)
        Logger.appendTimestamp(to: &bytes)
        bytes.append(UInt8(ascii: " "))
        append(level.rawValue)
        bytes.append(UInt8(ascii: " "))
        append(label)
        bytes.append(UInt8(ascii: ":"))
        if !metadata.isEmpty {
            for (key, value) in metadata.sorted(by: { $0.key < $1.key }) { field(key, value) }
        }
    }

    /// Appends ` key=value`.
    public mutating func field(_ key: String, _ value: String) {
        bytes.append(UInt8(ascii: " "))
        append(key)
        bytes.append(UInt8(ascii: "="))
        append(value)
    }

    /// Copies the string's contiguous UTF-8 in one go; appending `utf8` went a byte at a time.
    private mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// Appends ` key=value` for a whole number, without building a `String` for it.
    public mutating func field(_ key: String, _ value: Int) {
        if value < 0 {
            field(key, "-" + String(value.magnitude))
        } else {
            field(key, UInt64(value))
        }
    }

    /// Appends ` key=value` for a whole number, without building a `String` for it.
    public mutating func field(_ key: String, _ value: UInt64) {
        bytes.append(UInt8(ascii: " "))
        append(key)
        bytes.append(UInt8(ascii: "="))
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for 20 digits.
        withUnsafeMutableBytes(of: &digits) { buffer in
            var rest = value
            var start = buffer.count
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            } while rest > 0
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[start...]))
        }
    }

    /// The finished line: the message and a newline after the fields.
    consuming func finish(_ message: String) -> [UInt8] {
        bytes.append(UInt8(ascii: " "))
        append(message)
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// The finished line: the message and a newline after the fields.
    consuming func finish(_ message: StaticString) -> [UInt8] {
        bytes.append(UInt8(ascii: " "))
        bytes.append(contentsOf: UnsafeBufferPointer(start: message.utf8Start, count: message.utf8CodeUnitCount))
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }
}
