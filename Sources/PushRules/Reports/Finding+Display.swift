import StrictJSON

extension Finding {
    /// ``value`` as push-inspect shows it to people (`check --show-values`, the JUnit
    /// report): a payload value as compact JSON whose strings are written with terminal-safe
    /// escapes (``JSONStringEscaping/terminalSafe``: `"\u009b31m…"`), a header's value as the
    /// text sent with the same escapes and without quotes. Either way a control or
    /// bidirectional character of the sender's shows as `\uXXXX` and acts on nothing.
    public var escapedValue: String? {
        guard let value else { return nil }
        if path.header == nil, let json = try? JSONParser.parse(Array(value.utf8)) {
            var bytes: [UInt8] = []
            JSONWriter.write(json, into: &bytes, escaping: .terminalSafe)
            return String(decoding: bytes, as: UTF8.self)
        }
        var bytes: [UInt8] = []
        JSONWriter.writeString(value, into: &bytes, escaping: .terminalSafe)
        return String(decoding: bytes.dropFirst().dropLast(), as: UTF8.self)
    }
}
