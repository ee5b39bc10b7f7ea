/// Text the capture encoder may copy as it is, because whoever made the hint checked that it
/// needs no JSON escaping (for example a device path validation parsed: `/3/device/` and hex
/// digits).
///
/// Like ``CaptureEncodingHint`` it never takes part in equality or hashing, and whoever
/// changes the hinted value drops the hint. The encoder uses it only for the very text it
/// was made for, so a hint that does not match is ignored rather than trusted.
struct CapturePlainTextHint: Sendable, Hashable {
    var text: String?

    /// Whether `value` is the text the hint vouches for.
    func vouches(for value: String) -> Bool {
        // Usually the same string storage, which `==` compares before any byte.
        text == value
    }

    static func == (lhs: Self, rhs: Self) -> Bool { true }
    func hash(into hasher: inout Hasher) {}
}
