import APNsCore
import StrictJSON
internal import SystemSeam

/// The `:path` of a device push: `/3/device/<hex token>`.
enum DevicePath {
    static let prefix = "/3/device/"

    /// The token text after the prefix, or the reason APNs gives for the path.
    ///
    /// - `/3/device/` or `/3/device` with nothing after it → `MissingDeviceToken`;
    /// - any other path, a query, or more segments → `BadPath`;
    /// - text that is not hex of even length → `BadDeviceToken`.
    static func token(in path: String, raw: inout String?) throws(PushRejection) -> DeviceToken {
        // One pass over the contiguous bytes, since this runs for every push: a separator
        // makes the path bad; without uppercase, a valid token's text is its stored form.
        let scan = path.withBorrowedUTF8 { bytes -> Scan? in
            guard bytes.count >= prefixBytes.count else { return nil }
            for index in 0..<prefixBytes.count where bytes[index] != prefixBytes[index] { return nil }
            let text = UnsafeBufferPointer(rebasing: bytes[prefixBytes.count...])
            var scan = Scan(isEmpty: text.isEmpty, token: DeviceToken(hexUTF8: text))
            if let token = scan.token {
                // Hex digits only, so no separator; uppercase exactly when lowering changed a byte.
                scan.hasUppercase = token.hex.withBorrowedUTF8 { lowered in
                    guard let loweredBase = lowered.baseAddress, let textBase = text.baseAddress else { return false }
                    return memcmp(loweredBase, textBase, text.count) != 0
                }
            } else {
                for byte in text {
                    switch byte {
                    case UInt8(ascii: "/"), UInt8(ascii: "?"): scan.hasSeparator = true
                    case UInt8(ascii: "A")...UInt8(ascii: "Z"): scan.hasUppercase = true
                    default: break
                    }
                }
            }
            // The usual lowercase token shares the parsed token's storage instead of a copy.
            if scan.token == nil || scan.hasUppercase { scan.text = String(decoding: text, as: UTF8.self) }
            return scan
        }
        guard let scan else {
            if path == String(prefix.dropLast()) { throw PushRejection(.missingDeviceToken, "the path has no device token") }
            throw PushRejection(.badPath, "the path must be \(prefix)<device token>, found \(path)")
        }
        guard !scan.isEmpty else { throw PushRejection(.missingDeviceToken, "the path has no device token") }
        raw = scan.text ?? scan.token?.hex
        if scan.hasSeparator {
            throw PushRejection(.badPath, "the path must be \(prefix)<device token> with nothing after the token")
        }
        guard let token = scan.token else {
            throw PushRejection(.badDeviceToken, "the device token must be hex digits of even length")
        }
        return token
    }

    private static let prefixBytes = Array(prefix.utf8)

    /// What one pass over the text after the prefix found.
    private struct Scan {
        var isEmpty: Bool
        var token: DeviceToken?
        var hasSeparator = false
        var hasUppercase = false
        /// The text as sent, when it differs from the token's stored form.
        var text: String?
    }
}
