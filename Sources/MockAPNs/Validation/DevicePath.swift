import APNsCore

/// The `:path` of a device push: `/3/device/<hex token>`.
enum DevicePath {
    static let prefix = "/3/device/"

    /// The token text after the prefix, or the reason APNs gives for the path.
    ///
    /// - `/3/device/` or `/3/device` with nothing after it → `MissingDeviceToken`;
    /// - any other path, a query, or more segments → `BadPath`;
    /// - text that is not hex of even length → `BadDeviceToken`.
    static func token(in path: String, raw: inout String?) throws(PushRejection) -> DeviceToken {
        let utf8 = path.utf8
        let prefixBytes = prefix.utf8
        guard utf8.starts(with: prefixBytes) else {
            if path == String(prefix.dropLast()) { throw PushRejection(.missingDeviceToken, "the path has no device token") }
            throw PushRejection(.badPath, "the path must be \(prefix)<device token>, found \(path)")
        }
        let rest = path.utf8.dropFirst(prefixBytes.count)
        guard !rest.isEmpty else { throw PushRejection(.missingDeviceToken, "the path has no device token") }
        // One pass over the contiguous bytes (this runs for every push): a separator makes
        // the path bad; without uppercase, a valid token's text is exactly its stored form.
        var hasSeparator = false
        var hasUppercase = false
        var path = path
        path.withUTF8 { bytes in
            for byte in bytes[prefixBytes.count...] {
                switch byte {
                case UInt8(ascii: "/"), UInt8(ascii: "?"): hasSeparator = true
                case UInt8(ascii: "A")...UInt8(ascii: "Z"): hasUppercase = true
                default: break
                }
            }
        }
        let text = Substring(rest)
        let token = DeviceToken(text)
        // The usual lowercase token shares the parsed token's storage instead of a copy.
        if let token, !hasUppercase { raw = token.hex } else { raw = String(text) }
        if hasSeparator {
            throw PushRejection(.badPath, "the path must be \(prefix)<device token> with nothing after the token")
        }
        guard let token else {
            throw PushRejection(.badDeviceToken, "the device token must be hex digits of even length")
        }
        return token
    }
}
