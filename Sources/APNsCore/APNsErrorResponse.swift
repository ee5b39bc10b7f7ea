/// The JSON body of an APNs error: `{"reason":"…"}`, plus `timestamp` for 410s.
public struct APNsErrorResponse: Hashable, Sendable {
    public var reason: APNsReason
    /// For 410 answers: when the token was last confirmed invalid, in milliseconds since 1970.
    public var timestamp: Int64?

    public init(reason: APNsReason, timestamp: Int64? = nil) {
        self.reason = reason
        self.timestamp = timestamp
    }

    /// The body exactly as APNs sends it.
    public var jsonBytes: [UInt8] {
        var text = "{\"reason\":\""
        for scalar in reason.wireValue.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case _ where scalar.value < 0x20: text += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
        if let timestamp { text += ",\"timestamp\":\(timestamp)" }
        text += "}"
        return Array(text.utf8)
    }
}
