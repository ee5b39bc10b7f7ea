/// Seconds in messages about `iat`, which a client controls: a numeric-string `iat` of 20
/// digits puts it 10^20 s away, past what `Int` holds, and a message must not trap on it.
enum SecondsText {
    /// `seconds` rounded up, in digits while they fit an integer, else in floating-point
    /// notation (`1e+20`).
    static func roundedUp(_ seconds: Double) -> String {
        let rounded = seconds.rounded(.up)
        guard rounded.isFinite, abs(rounded) < 1e15 else { return "\(rounded)" }
        return String(Int(rounded))
    }
}
