/// A device token: hex digits of any even length, compared without regard to case.
///
/// Apple says to assume nothing about the length; 64 hex digits is common, and 96, 108
/// and 160 have been seen. The stored form is lowercase.
public struct DeviceToken: Hashable, Sendable, CustomStringConvertible {
    /// The token in lowercase hex.
    public let hex: String

    /// Parses a token; nil unless it is a non-empty, even-length string of hex digits.
    public init?(_ text: some StringProtocol) {
        // Native strings and substrings hand out their contiguous bytes; others are copied once.
        guard let token = text.utf8.withContiguousStorageIfAvailable({ DeviceToken(hexUTF8: $0) })
            ?? Array(text.utf8).withUnsafeBufferPointer({ DeviceToken(hexUTF8: $0) })
        else { return nil }
        self = token
    }

    /// Parses a token from its UTF-8 bytes; nil unless they are a non-empty, even-length
    /// run of hex digits. The push path's form: it reads the bytes where they lie.
    public init?(hexUTF8 bytes: UnsafeBufferPointer<UInt8>) {
        let count = bytes.count
        guard count > 0, count % 2 == 0 else { return nil }
        var valid = true
        let hex = String(unsafeUninitializedCapacity: count) { lowered in
            for index in 0..<count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): lowered[index] = byte
                case UInt8(ascii: "A")...UInt8(ascii: "F"): lowered[index] = byte | 0x20
                default:
                    valid = false
                    return 0
                }
            }
            return count
        }
        guard valid else { return nil }
        self.hex = hex
    }

    /// The token with all but its first and last four digits hidden, for logs and reports.
    public var masked: String {
        // Hex is ASCII: counting bytes is counting characters, without grapheme breaking.
        let count = hex.utf8.count
        guard count > 8 else { return String(repeating: "*", count: count) }
        // Byte copies rather than interpolation: logs mask a token for every push.
        // From the contiguous bytes: `utf8.suffix(4)` walks the view index by index.
        let ellipsis: (UInt8, UInt8, UInt8) = (0xE2, 0x80, 0xA6)  // "…"
        var hex = hex
        return hex.withUTF8 { digits in
            String(unsafeUninitializedCapacity: 11) { output in
                for index in 0..<4 {
                    output[index] = digits[index]
                    output[7 + index] = digits[count - 4 + index]
                }
                (output[4], output[5], output[6]) = ellipsis
                return 11
            }
        }
    }

    public var description: String { hex }
}
