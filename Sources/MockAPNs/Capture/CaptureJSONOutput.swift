import StrictJSON

/// The capture encoder's JSON text primitives: values, strings, raw UTF-8 bytes, integers.
///
/// They escape as `JSONWriter` does, faster: runs of bytes that need no escape are copied
/// in one `append`, integers are formatted without building a `String`, and object members
/// are written in dictionary order instead of being sorted into a new array. Profiling
/// the push path showed these three costing half of `record`.
enum CaptureJSONOutput {
    /// Appends `value` as compact JSON. Object member order is unspecified; numbers are
    /// written as `JSONWriter` writes them, so integers stay integers and doubles round-trip.
    static func write(_ value: JSONValue, into output: inout [UInt8]) {
        switch value {
        case .null, .bool, .double:
            JSONWriter.write(value, into: &output)
        case .integer(let number):
            writeInteger(number, into: &output)
        case .string(let text):
            writeString(text, into: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            var first = true
            for element in elements {
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                write(element, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            var first = true
            for (key, member) in members {
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                writeString(key, into: &output)
                output.append(UInt8(ascii: ":"))
                write(member, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `text` as a JSON string literal.
    @inline(__always)
    static func writeString(_ text: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { writeEscaped($0, into: &output) }
        output.append(UInt8(ascii: "\""))
    }

    /// Appends UTF-8 `bytes` escaped as the inside of a JSON string.
    static func writeEscaped(_ bytes: [UInt8], into output: inout [UInt8]) {
        bytes.withUnsafeBufferPointer { writeEscaped($0, into: &output) }
    }

    /// Appends UTF-8 `bytes` escaped as the inside of a JSON string.
    ///
    /// Text without special bytes (most header values) is one append. A payload is full of
    /// quotes, and an `append` per escape cost more than the rest of the line, so escaped
    /// text is written into a scratch buffer (on the stack when small) and appended once.
    static func writeEscaped(_ bytes: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) {
        var firstSpecial = 0
        while firstSpecial < bytes.count, !needsEscape(bytes[firstSpecial]) { firstSpecial += 1 }
        if firstSpecial == bytes.count {
            output.append(contentsOf: bytes)
            return
        }
        // At most six bytes (`\u00XX`) per input byte.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: (bytes.count - firstSpecial) * 6) { scratch in
            var written = 0
            for index in firstSpecial..<bytes.count {
                let byte = bytes[index]
                guard needsEscape(byte) else {
                    scratch[written] = byte
                    written += 1
                    continue
                }
                scratch[written] = UInt8(ascii: "\\")
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                    scratch[written + 1] = byte
                    written += 2
                case 0x0A:
                    scratch[written + 1] = UInt8(ascii: "n")
                    written += 2
                case 0x0D:
                    scratch[written + 1] = UInt8(ascii: "r")
                    written += 2
                case 0x09:
                    scratch[written + 1] = UInt8(ascii: "t")
                    written += 2
                default:
                    scratch[written + 1] = UInt8(ascii: "u")
                    scratch[written + 2] = UInt8(ascii: "0")
                    scratch[written + 3] = UInt8(ascii: "0")
                    scratch[written + 4] = hexDigit(byte >> 4)
                    scratch[written + 5] = hexDigit(byte & 0x0F)
                    written += 6
                }
            }
            output.reserveCapacity(output.count + firstSpecial + written)
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[..<firstSpecial]))
            output.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[..<written]))
        }
    }

    @inline(__always)
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// Appends JSON text that a strict parser accepted, without the whitespace between
    /// tokens, so that a payload spread over several lines stays on one capture line.
    static func writeCompacted(json: [UInt8], into output: inout [UInt8]) {
        json.withUnsafeBufferPointer { bytes in
            var inString = false
            var escaped = false
            var runStart = 0
            for index in 0..<bytes.count {
                let byte = bytes[index]
                if inString {
                    if escaped {
                        escaped = false
                    } else if byte == UInt8(ascii: "\\") {
                        escaped = true
                    } else if byte == UInt8(ascii: "\"") {
                        inString = false
                    }
                    continue
                }
                switch byte {
                case UInt8(ascii: "\""):
                    inString = true
                case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                    if runStart < index { output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index])) }
                    runStart = index + 1
                default:
                    break
                }
            }
            if runStart < bytes.count { output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...])) }
        }
    }

    /// Appends a signed integer in decimal.
    static func writeInteger(_ value: some BinaryInteger, into output: inout [UInt8]) {
        if value < 0 {
            output.append(UInt8(ascii: "-"))
            // `magnitude` of the most negative value still fits in UInt64.
            writeUnsigned(UInt64(truncatingIfNeeded: Int64(truncatingIfNeeded: value).magnitude), into: &output)
        } else {
            writeUnsigned(UInt64(truncatingIfNeeded: value), into: &output)
        }
    }

    private static func writeUnsigned(_ value: UInt64, into output: inout [UInt8]) {
        if value < 10 {
            output.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var rest = value
            var start = digits.count
            while rest > 0 {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    @inline(__always)
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
