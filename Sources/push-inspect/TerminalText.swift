import StrictJSON

/// How push-inspect shows text it did not write (titles, bodies, topics, reasons, values):
/// with the escapes of a JSON string, ``JSONStringEscaping/terminalSafe``, so that a push
/// can neither forge a line of output nor act on the terminal that shows it. The JSON
/// outputs write their strings with the same escaping.
enum TerminalText {
    /// `text` with the escapes of a JSON string, without the quotes: `\n`, `\"`, `\\`, and
    /// `\uXXXX` for the other C0 controls, DEL, the C1 controls (`\u009b`), the bidirectional
    /// controls (`\u202e`) and the line and paragraph separators (`\u2028`).
    static func escaped(_ text: String) -> String {
        var bytes: [UInt8] = []
        JSONWriter.writeString(text, into: &bytes, escaping: .terminalSafe)
        return String(decoding: bytes.dropFirst().dropLast(), as: UTF8.self)
    }

    /// `value` as compact JSON, its strings written with terminal-safe escapes.
    static func jsonBytes(_ value: JSONValue) -> [UInt8] {
        var bytes: [UInt8] = []
        JSONWriter.write(value, into: &bytes, escaping: .terminalSafe)
        return bytes
    }
}
