import APNsCore
import StrictJSON

/// What makes an `apns-topic` well formed, and what a push type requires of it.
///
/// The mock's split, since Apple does not define it: `BadTopic` is a topic that cannot be
/// a topic at all (empty, spaces, characters no bundle ID has, empty labels);
/// `TopicDisallowed` is a well-formed topic this sender may not push to with this push
/// type (unknown app, wrong suffix, not covered by the certificate). Field reports of
/// `TopicDisallowed` for a VoIP push to the bare bundle ID support the latter.
enum TopicRules {
    /// Longest topic accepted: a bundle ID (155 characters at most) plus the longest suffix.
    static let maximumLength = 255

    /// Whether `topic` is a dot-separated list of non-empty labels of letters, digits,
    /// `-` and `_`.
    static func isWellFormed(_ topic: String) -> Bool {
        // Over the contiguous bytes: stepping through `String.UTF8View` costs several times
        // more per byte, and every push's topic is checked.
        topic.withBorrowedUTF8 { bytes in
            guard !bytes.isEmpty, bytes.count <= maximumLength else { return false }
            var labelLength = 0
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                     UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                    labelLength += 1
                case UInt8(ascii: "."):
                    guard labelLength > 0 else { return false }
                    labelLength = 0
                default:
                    return false
                }
            }
            return labelLength > 0
        }
    }
}
