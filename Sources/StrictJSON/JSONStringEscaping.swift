/// Which characters ``JSONWriter`` escapes in a string beyond the ones JSON requires.
///
/// Either way the text is valid JSON and parses back to the same string; the choice is
/// only which characters appear as `\uXXXX` rather than as themselves.
public enum JSONStringEscaping: Sendable, Hashable {
    /// `"`, `\` and the C0 controls, as JavaScript's `JSON.stringify` and Python's
    /// `json.dumps(ensure_ascii=False)` write them: for bytes that are signed, compared or
    /// stored (the Hermes canonical string, capture lines).
    case minimal
    /// ``minimal``, and also every character a terminal acts on or that reorders the text
    /// around it: DEL (U+007F), the C1 controls U+0080–U+009F (U+009B is an 8-bit CSI), the
    /// bidirectional controls U+061C, U+200E, U+200F, U+202A–U+202E and U+2066–U+2069, and
    /// the line and paragraph separators U+2028 and U+2029. For text from a sender that a
    /// person reads, on a terminal or anywhere else.
    case terminalSafe

    /// Whether a string written with this escaping holds `scalar` as an escape (`\n`,
    /// `\u001b`, `\u202e`…) rather than as itself; `"` and `\`, which every JSON string
    /// escapes, aside. For writers of other formats that must escape the same characters
    /// (push-inspect's JUnit report).
    public func escapes(_ scalar: Unicode.Scalar) -> Bool {
        switch self {
        case .minimal: scalar.value < 0x20
        case .terminalSafe: scalar.value < 0x20 || scalar.value == 0x7F || Self.escapesForTerminal(scalar)
        }
    }

    /// Whether ``terminalSafe`` writes `scalar`, which is not ASCII, as `\uXXXX`.
    static func escapesForTerminal(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x80...0x9F, 0x061C, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
