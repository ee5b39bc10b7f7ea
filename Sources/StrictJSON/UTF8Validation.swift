/// UTF-8 validation straight from bytes, without building a `String`: the same verdict as
/// `String(validating:as:)`, for the parser's strings and the mock's captured payloads.
public enum UTF8Validation {
    /// Whether `bytes` are well-formed UTF-8 (no overlong forms, surrogates or values past U+10FFFF).
    public static func isValid(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { isValid($0) }
    }

    /// Whether `buffer` is well-formed UTF-8 (no overlong forms, surrogates or values past U+10FFFF).
    public static func isValid(_ buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        let count = buffer.count
        guard let base = buffer.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        while index < count {
            // ASCII, the common case, eight bytes at a time.
            if index + 8 <= count, raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                index += 8
                continue
            }
            let lead = buffer[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            var lower: UInt8 = 0x80
            var upper: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; lower = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; upper = 0x9F
            case 0xF0: length = 4; lower = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; upper = 0x8F
            default: return false
            }
            guard index + length <= count else { return false }
            let second = buffer[index + 1]
            guard second >= lower, second <= upper else { return false }
            for offset in 2..<max(length, 2) where buffer[index + offset] & 0xC0 != 0x80 {
                return false
            }
            index += length
        }
        return true
    }
}
