/// The rule a `session_id` follows, shared by the gateway's validation, push-inspect's
/// `hermes` profile and the app's deep-link parsing.
///
/// The contract leaves the pattern to us. Hermes session ids are identifiers such as
/// `20261130_154126_a1b2c3`; we allow 1–128 characters from `[A-Za-z0-9._:-]`, starting
/// with a letter or digit. That keeps the one free-form value in a payload from carrying
/// prose, paths (no `/`), URLs or shell syntax.
public enum HermesSessionID {
    /// The longest session id accepted, in characters (ASCII, so also bytes).
    public static let maximumLength = 128

    /// The pattern in regular-expression form, for documentation and policy files.
    public static let pattern = "^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$"

    /// Whether `text` is a well-formed session id.
    public static func isValid(_ text: some StringProtocol) -> Bool {
        // Over the contiguous bytes: stepping an enumerated UTF-8 view costs several times
        // as much per byte, and the gateway checks a session id per push.
        text.utf8.withContiguousStorageIfAvailable(isValid(utf8:))
            ?? Array(text.utf8).withUnsafeBufferPointer(isValid(utf8:))
    }

    /// Whether `bytes` are the UTF-8 of a well-formed session id.
    static func isValid(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first, bytes.count <= maximumLength else { return false }
        switch first {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            break
        default:
            return false
        }
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "-"):
                continue
            default:
                return false
            }
        }
        return true
    }
}
