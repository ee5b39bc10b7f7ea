/// The form of a broadcast channel id (`apns-channel-id`, and `input-push-channel` in a
/// Live Activity payload): the base64 text APNs returned when the channel was created.
///
/// ```swift
/// ChannelIDSyntax.isWellFormed("dHN0LXNyY2gtY2hubA==")   // true
/// ChannelIDSyntax.isWellFormed("not base64!")            // false
/// ```
public enum ChannelIDSyntax {
    /// Whether `id` is standard base64 with padding: not empty, a multiple of 4 characters
    /// from `A-Z a-z 0-9 + /`, with at most two `=` at the end.
    public static func isWellFormed(_ id: String) -> Bool {
        let bytes = id.utf8
        guard !bytes.isEmpty, bytes.count % 4 == 0 else { return false }
        let padding = bytes.reversed().prefix { $0 == UInt8(ascii: "=") }.count
        guard padding <= 2 else { return false }
        return bytes.dropLast(padding).allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"): true
            default: false
            }
        }
    }
}
