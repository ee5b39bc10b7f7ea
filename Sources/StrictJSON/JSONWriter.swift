/// Writes compact JSON. Object keys are sorted so that output is deterministic;
/// non-finite doubles, which JSON cannot express, are written as `null`.
public enum JSONWriter {
    /// Appends `value` as compact JSON.
    public static func write(_ value: JSONValue, into output: inout [UInt8]) {
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
            writeString(text, into: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                write(element, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            writeObject(members.sorted { $0.key < $1.key }, into: &output)
        }
    }

    /// Writes an object with members in the given order (JWT headers put `alg` first).
    /// Appends an object whose members keep the given order.
    public static func writeObject(_ members: [(key: String, value: JSONValue)], into output: inout [UInt8]) {
        output.append(UInt8(ascii: "{"))
        for (index, member) in members.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            writeString(member.key, into: &output)
            output.append(UInt8(ascii: ":"))
            write(member.value, into: &output)
        }
        output.append(UInt8(ascii: "}"))
    }

    /// Appends `text` as a JSON string literal, escaped.
    public static func writeString(_ text: String, into output: inout [UInt8]) {
        var text = text
        // Over the contiguous UTF-8 (String's own iterator costs several times more per
        // byte), and a string that needs no escape, the common case, is copied in one go:
        // the gateway writes a canonical string per push to check its HMAC.
        text.withUTF8 { bytes in
            output.append(UInt8(ascii: "\""))
            if !bytes.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
                output.append(contentsOf: bytes)
                output.append(UInt8(ascii: "\""))
                return
            }
            for byte in bytes {
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
                case 0..<0x20:
                    let hex = Array("0123456789abcdef".utf8)
                    output.append(contentsOf: #"\u00"#.utf8)
                    output.append(hex[Int(byte >> 4)])
                    output.append(hex[Int(byte & 0x0F)])
                default: output.append(byte)
                }
            }
            output.append(UInt8(ascii: "\""))
        }
    }
}
