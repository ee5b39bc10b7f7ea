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
        let bytes = text.utf8
        guard !bytes.isEmpty, bytes.count <= maximumLength else { return false }
        for (index, byte) in bytes.enumerated() {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"):
                continue
            case UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "-"):
                if index == 0 { return false }
            default:
                return false
            }
        }
        return true
    }
}
