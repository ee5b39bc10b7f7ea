import StrictJSON

/// Standard base64 (RFC 4648 section 4, with padding) for payloads that are not UTF-8.
///
/// Hand-written over bytes: Foundation's `Data` round trip costs an allocation per call and
/// the capture encodes on the push path.
enum CaptureBase64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Appends the encoding of `bytes`.
    static func encode(_ bytes: [UInt8], into output: inout TextBuffer) {
        output.write(atMost: (bytes.count + 2) / 3 * 4) { out in
            var index = 0
            var written = 0
            func put(_ sextet: UInt32) {
                out[written] = alphabet[Int(sextet & 63)]
                written += 1
            }
            while index + 3 <= bytes.count {
                let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                put(chunk >> 18)
                put(chunk >> 12)
                put(chunk >> 6)
                put(chunk)
                index += 3
            }
            let rest = bytes.count - index
            guard rest > 0 else { return written }
            let chunk = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
            put(chunk >> 18)
            put(chunk >> 12)
            if rest == 2 {
                put(chunk >> 6)
            } else {
                out[written] = UInt8(ascii: "=")
                written += 1
            }
            out[written] = UInt8(ascii: "=")
            return written + 1
        }
    }

    /// Decodes padded base64; nil if `text` is not exactly that.
    static func decode(_ text: String) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count % 4 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(input.count / 4 * 3)
        var index = 0
        while index < input.count {
            let isLast = index + 4 == input.count
            let padding = isLast ? (input[index + 3] == UInt8(ascii: "=") ? 1 : 0) + (input[index + 2] == UInt8(ascii: "=") ? 1 : 0) : 0
            guard padding == 0 || input[index + 3] == UInt8(ascii: "=") else { return nil }
            var chunk: UInt32 = 0
            for offset in 0..<4 - padding {
                guard let sextet = value(of: input[index + offset]) else { return nil }
                chunk |= sextet << (18 - 6 * UInt32(offset))
            }
            output.append(UInt8(truncatingIfNeeded: chunk >> 16))
            if padding < 2 { output.append(UInt8(truncatingIfNeeded: chunk >> 8)) }
            if padding < 1 { output.append(UInt8(truncatingIfNeeded: chunk)) }
            index += 4
        }
        return output
    }

    private static func value(of byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): UInt32(byte - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): UInt32(byte - UInt8(ascii: "a")) + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0")) + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
