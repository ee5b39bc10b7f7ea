import Foundation

/// The text of an `apns-channel-id`: standard base64 (RFC 4648 §4, padded) of at least one
/// byte. Apple issues them; the mock makes them from 16 random bytes.
enum ChannelID {
    /// The longest id the mock reads; far above the 24 characters of its own ids.
    static let maximumLength = 256

    /// A new random id: 16 bytes in base64 (24 characters).
    static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString()
    }

    /// Whether `text` is padded standard base64 of at least one byte, within ``maximumLength``.
    ///
    /// Checked on the bytes, without decoding: every broadcast's id is checked.
    static func isWellFormed(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            let count = bytes.count
            guard count > 0, count <= maximumLength, count % 4 == 0 else { return false }
            var padding = 0
            if bytes[count - 1] == UInt8(ascii: "=") { padding = bytes[count - 2] == UInt8(ascii: "=") ? 2 : 1 }
            for byte in bytes[..<(count - padding)] {
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                     UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"):
                    continue
                default:
                    return false
                }
            }
            // The bits padding leaves over must be zero, as a decoder that checks them requires.
            guard padding > 0 else { return true }
            let last = value(of: bytes[count - padding - 1])
            return padding == 2 ? last & 0x0F == 0 : last & 0x03 == 0
        }
    }

    private static func value(of byte: UInt8) -> UInt8 {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        default: 63
        }
    }
}
