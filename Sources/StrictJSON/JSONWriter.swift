/// Writes compact JSON. Object keys are sorted so that output is deterministic;
/// non-finite doubles, which JSON cannot express, are written as `null`.
public enum JSONWriter {
    /// Appends `value` as compact JSON.
    ///
    /// - Parameter escaping: how strings (object keys too) are escaped; see ``writeString(_:into:escaping:)``.
    public static func write(_ value: JSONValue, into output: inout [UInt8], escaping: JSONStringEscaping = .minimal) {
        switch value {
        case .null:
            output.append(contentsOf: "null".utf8)
        case .bool(let flag):
            output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .integer(let number):
            output.append(contentsOf: String(number).utf8)
        case .double(let number):
            if number.isFinite {
                output.append(contentsOf: number.description.utf8)
            } else {
                output.append(contentsOf: "null".utf8)
            }
        case .string(let text):
            writeString(text, into: &output, escaping: escaping)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                write(element, into: &output, escaping: escaping)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            writeObject(members.sorted { $0.key < $1.key }, into: &output, escaping: escaping)
        }
    }

    /// Appends an object whose members keep the given order (JWT headers put `alg` first).
    ///
    /// - Parameter escaping: how strings are escaped; see ``writeString(_:into:escaping:)``.
    public static func writeObject(
        _ members: [(key: String, value: JSONValue)], into output: inout [UInt8], escaping: JSONStringEscaping = .minimal
    ) {
        output.append(UInt8(ascii: "{"))
        for (index, member) in members.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            writeString(member.key, into: &output, escaping: escaping)
            output.append(UInt8(ascii: ":"))
            write(member.value, into: &output, escaping: escaping)
        }
        output.append(UInt8(ascii: "}"))
    }

    /// Appends `text` as a JSON string literal, escaped.
    ///
    /// - Parameter escaping: ``JSONStringEscaping/minimal`` (what JSON requires) unless given;
    ///   ``JSONStringEscaping/terminalSafe`` for text a person reads.
    public static func writeString(_ text: String, into output: inout [UInt8], escaping: JSONStringEscaping = .minimal) {
        var text = text
        // Over the contiguous UTF-8 (String's own iterator costs several times more per
        // byte), and a string that needs no escape, the common case, is copied in one go:
        // the gateway writes a canonical string per push to check its HMAC.
        text.withUTF8 { bytes in
            output.append(UInt8(ascii: "\""))
            let needsEscapes = switch escaping {
            case .minimal: bytes.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
            // Its further escapes are of DEL and characters beyond ASCII.
            case .terminalSafe: bytes.contains { $0 < 0x20 || $0 > 0x7E || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
            }
            if !needsEscapes {
                output.append(contentsOf: bytes)
                output.append(UInt8(ascii: "\""))
                return
            }
            switch escaping {
            case .minimal:
                for byte in bytes { appendEscaped(byte, into: &output) }
            case .terminalSafe:
                var scalars = Unicode.UTF8.ForwardParser()
                var iterator = bytes.makeIterator()
                // `text` is a String, so its UTF-8 is valid: every parse is a scalar.
                while case .valid(let encoded) = scalars.parseScalar(from: &iterator) {
                    let scalar = Unicode.UTF8.decode(encoded)
                    if scalar.value == 0x7F || JSONStringEscaping.escapesForTerminal(scalar) {
                        appendUnicodeEscape(scalar.value, into: &output)
                    } else if scalar.isASCII {
                        appendEscaped(UInt8(scalar.value), into: &output)
                    } else {
                        output.append(contentsOf: encoded)
                    }
                }
            }
            output.append(UInt8(ascii: "\""))
        }
    }

    /// `text` as a JSON string, quotes included, for a message that quotes text it did not
    /// write (`"\u001b[2J"` with ``JSONStringEscaping/terminalSafe``).
    public static func quoted(_ text: String, escaping: JSONStringEscaping = .minimal) -> String {
        var bytes: [UInt8] = []
        writeString(text, into: &bytes, escaping: escaping)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the escape a JSON string writes for `scalar`, one that
    /// ``JSONStringEscaping/escapes(_:)`` says is escaped (`\n`, `\u001b`, `\u202e`): for
    /// writers of other formats that escape the same characters but leave `"` and `\` alone
    /// (a log line's message).
    public static func writeEscape(of scalar: Unicode.Scalar, into output: inout [UInt8]) {
        if scalar.value < 0x20 {
            appendEscaped(UInt8(scalar.value), into: &output)
        } else {
            appendUnicodeEscape(scalar.value, into: &output)
        }
    }

    /// Appends one byte of a string, escaped as JSON requires (bytes from 0x80 on, as they are).
    private static func appendEscaped(_ byte: UInt8, into output: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
        case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
        case 0x0A: output.append(contentsOf: #"\n"#.utf8)
        case 0x0D: output.append(contentsOf: #"\r"#.utf8)
        case 0x09: output.append(contentsOf: #"\t"#.utf8)
        // \b and \f as JavaScript's JSON.stringify and Python's json.dumps write them, so
        // bytes we sign (the Hermes canonical string) match theirs.
        case 0x08: output.append(contentsOf: #"\b"#.utf8)
        case 0x0C: output.append(contentsOf: #"\f"#.utf8)
        case 0..<0x20: appendUnicodeEscape(UInt32(byte), into: &output)
        default: output.append(byte)
        }
    }

    /// Appends `\uXXXX` in lower-case hex, for a code point below U+10000.
    private static func appendUnicodeEscape(_ value: UInt32, into output: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        output.append(contentsOf: #"\u"#.utf8)
        for shift in stride(from: 12, through: 0, by: -4) {
            output.append(hex[Int((value >> UInt32(shift)) & 0x0F)])
        }
    }
}
