/// Strict base64url without padding (RFC 7515 §2), over bytes.
///
/// Decoding rejects padding, whitespace, characters outside `A-Z a-z 0-9 - _`, impossible
/// lengths, and non-zero unused bits in the last character. The last rule makes the
/// encoding canonical: no two strings decode to the same bytes, so changing any
/// character of a token changes what is verified.
enum Base64URL {
    /// Encodes bytes as base64url without padding.
    static func encode(_ bytes: some Collection<UInt8>) -> String {
        if let encoded = bytes.withContiguousStorageIfAvailable({ encode($0) }) { return encoded }
        return Array(bytes).withUnsafeBufferPointer { encode($0) }
    }

    /// Encodes contiguous bytes, writing straight into the new string's storage.
    static func encode(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        let tail = bytes.count % 3
        let count = bytes.count / 3 * 4 + (tail == 0 ? 0 : tail + 1)
        guard count > 0, let source = bytes.baseAddress else { return "" }
        return String(unsafeUninitializedCapacity: count) { output in
            guard let destination = output.baseAddress else { return 0 }
            var read = 0
            var write = 0
            while read + 3 <= bytes.count {
                let a = source[read], b = source[read + 1], c = source[read + 2]
                destination[write] = symbol(a >> 2)
                destination[write + 1] = symbol((a & 0x03) << 4 | b >> 4)
                destination[write + 2] = symbol((b & 0x0F) << 2 | c >> 6)
                destination[write + 3] = symbol(c & 0x3F)
                read += 3
                write += 4
            }
            if bytes.count - read == 1 {
                let a = source[read]
                destination[write] = symbol(a >> 2)
                destination[write + 1] = symbol((a & 0x03) << 4)
                write += 2
            } else if bytes.count - read == 2 {
                let a = source[read], b = source[read + 1]
                destination[write] = symbol(a >> 2)
                destination[write + 1] = symbol((a & 0x03) << 4 | b >> 4)
                destination[write + 2] = symbol((b & 0x0F) << 2)
                write += 3
            }
            return write
        }
    }

    /// The number of bytes `count` characters of unpadded base64url decode to, or `nil`
    /// if no valid text has that length.
    static func decodedCount(ofEncodedCount count: Int) -> Int? {
        let remainder = count % 4
        if remainder == 1 { return nil }
        return count / 4 * 3 + (remainder == 0 ? 0 : remainder - 1)
    }

    /// Decodes base64url text into `output`, which must hold at least
    /// ``decodedCount(ofEncodedCount:)`` bytes, and returns the number of bytes written;
    /// `nil` if the text is not strict, canonical base64url.
    static func decode(_ input: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>) -> Int? {
        guard let count = decodedCount(ofEncodedCount: input.count), output.count >= count else { return nil }
        guard let source = input.baseAddress, let destination = output.baseAddress else { return 0 }
        return values.withUnsafeBufferPointer { table in
            decode(source, count: input.count, into: destination, table: table)
        }
    }

    @inline(__always)
    private static func decode(
        _ source: UnsafePointer<UInt8>,
        count inputCount: Int,
        into destination: UnsafeMutablePointer<UInt8>,
        table: UnsafeBufferPointer<UInt8>
    ) -> Int? {
        func value(_ byte: UInt8) -> UInt8 { table[Int(byte)] }
        let remainder = inputCount % 4
        let wholeEnd = inputCount - remainder
        var read = 0
        var write = 0
        while read < wholeEnd {
            let a = value(source[read]), b = value(source[read + 1])
            let c = value(source[read + 2]), d = value(source[read + 3])
            if (a | b | c | d) & 0x80 != 0 { return nil }
            destination[write] = a << 2 | b >> 4
            destination[write + 1] = b << 4 | c >> 2
            destination[write + 2] = c << 6 | d
            read += 4
            write += 3
        }
        if remainder == 2 {
            let a = value(source[read]), b = value(source[read + 1])
            if (a | b) & 0x80 != 0 || b & 0x0F != 0 { return nil }
            destination[write] = a << 2 | b >> 4
            write += 1
        } else if remainder == 3 {
            let a = value(source[read]), b = value(source[read + 1]), c = value(source[read + 2])
            if (a | b | c) & 0x80 != 0 || c & 0x03 != 0 { return nil }
            destination[write] = a << 2 | b >> 4
            destination[write + 1] = b << 4 | c >> 2
            write += 2
        }
        return write
    }

    /// Decodes base64url text into a new array, or returns `nil` if it is not strict,
    /// canonical base64url.
    static func decode(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard let count = decodedCount(ofEncodedCount: input.count) else { return nil }
        var valid = true
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            let written = decode(input, into: buffer)
            valid = written != nil
            initialized = written ?? 0
        }
        return valid ? bytes : nil
    }

    /// Decodes base64url text, or returns `nil` if it is not strict, canonical base64url.
    static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode($0) }
    }

    /// The 6-bit value of each byte as a base64url character, or 0xFF for bytes outside the
    /// alphabet. A table, because branching on random base64 characters mispredicts.
    private static let values: [UInt8] = (0...255).map { (byte: Int) -> UInt8 in
        switch byte {
        case 65...90: UInt8(byte - 65)
        case 97...122: UInt8(byte - 97 + 26)
        case 48...57: UInt8(byte - 48 + 52)
        case 45: 62
        case 95: 63
        default: 0xFF
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
