/// The form of a broadcast channel id (`apns-channel-id`, and `input-push-channel` in a
/// Live Activity payload): the base64 text APNs returned when the channel was created.
///
/// ```swift
/// ChannelIDSyntax.isWellFormed("dHN0LXNyY2gtY2hubA==")   // true
/// ChannelIDSyntax.isWellFormed("not base64!")            // false
/// ```
public enum ChannelIDSyntax {
    /// Whether `id` is padded standard base64 (RFC 4648 §4) of at least one byte: a multiple
    /// of 4 characters from `A-Z a-z 0-9 + /`, at most two `=` at the end, and the bits the
    /// padding leaves over zero, as a decoder that checks them requires.
    ///
    /// Checked on the bytes, without decoding: every broadcast's id is checked.
    public static func isWellFormed(_ id: String) -> Bool {
        var id = id
        return id.withUTF8 { bytes in
            let count = bytes.count
            guard count > 0, count % 4 == 0 else { return false }
            var padding = 0
            if bytes[count - 1] == UInt8(ascii: "=") { padding = bytes[count - 2] == UInt8(ascii: "=") ? 2 : 1 }
            for byte in bytes[..<(count - padding)] {
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                     UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"):
                    continue
                default:
                    return false
                }
            }
            guard padding > 0 else { return true }
            let last = value(of: bytes[count - padding - 1])
            return padding == 2 ? last & 0x0F == 0 : last & 0x03 == 0
        }
    }

    private static func value(of byte: UInt8) -> UInt8 {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        default: 63
        }
    }
}
