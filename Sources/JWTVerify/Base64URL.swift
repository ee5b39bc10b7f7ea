/// Strict base64url without padding (RFC 7515 §2), over bytes.
///
/// Decoding rejects padding, whitespace, characters outside `A-Z a-z 0-9 - _`, impossible
/// lengths, and non-zero unused bits in the last character. The last rule makes the
/// encoding canonical: no two strings decode to the same bytes, so changing any
/// character of a token changes what is verified.
enum Base64URL {
    /// Encodes bytes as base64url without padding.
    static func encode(_ bytes: some Collection<UInt8>) -> String {
        var output = [UInt8]()
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next()
            let third = iterator.next()
            output.append(symbol(first >> 2))
            output.append(symbol((first & 0x03) << 4 | (second ?? 0) >> 4))
            guard let second else { break }
            output.append(symbol((second & 0x0F) << 2 | (third ?? 0) >> 6))
            guard let third else { break }
            output.append(symbol(third & 0x3F))
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes base64url text into `output`, or returns `false` if it is not strict,
    /// canonical base64url. `output` is only meaningful when `true` is returned.
    static func decode(_ input: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) -> Bool {
        let remainder = input.count % 4
        if remainder == 1 { return false }
        output.removeAll(keepingCapacity: true)
        output.reserveCapacity(input.count / 4 * 3 + 2)
        let wholeEnd = input.count - remainder
        var index = 0
        while index < wholeEnd {
            guard let a = value(input[index]), let b = value(input[index + 1]),
                let c = value(input[index + 2]), let d = value(input[index + 3])
            else { return false }
            output.append(a << 2 | b >> 4)
            output.append(b << 4 | c >> 2)
            output.append(c << 6 | d)
            index += 4
        }
        if remainder == 2 {
            guard let a = value(input[index]), let b = value(input[index + 1]), b & 0x0F == 0 else { return false }
            output.append(a << 2 | b >> 4)
        } else if remainder == 3 {
            guard let a = value(input[index]), let b = value(input[index + 1]),
                let c = value(input[index + 2]), c & 0x03 == 0
            else { return false }
            output.append(a << 2 | b >> 4)
            output.append(b << 4 | c >> 2)
        }
        return true
    }

    /// Decodes base64url text, or returns `nil` if it is not strict, canonical base64url.
    static func decode(_ text: String) -> [UInt8]? {
        var text = text
        var output: [UInt8] = []
        let ok = text.withUTF8 { decode($0, into: &output) }
        return ok ? output : nil
    }

    @inline(__always)
    private static func value(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return character &- UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return character &- UInt8(ascii: "a") &+ 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return character &- UInt8(ascii: "0") &+ 52
        case UInt8(ascii: "-"): return 62
        case UInt8(ascii: "_"): return 63
        default: return nil
        }
    }

    @inline(__always)
    private static func symbol(_ value: UInt8) -> UInt8 {
        switch value {
        case 0..<26: return UInt8(ascii: "A") &+ value
        case 26..<52: return UInt8(ascii: "a") &+ (value &- 26)
        case 52..<62: return UInt8(ascii: "0") &+ (value &- 52)
        case 62: return UInt8(ascii: "-")
        default: return UInt8(ascii: "_")
        }
    }
}
