import APNsCore
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

    /// Whether `text` is padded standard base64 of at least one byte (APNsCore's
    /// ``ChannelIDSyntax``, checked on the bytes, which `input-push-channel` is held to as
    /// well), within ``maximumLength``.
    static func isWellFormed(_ text: String) -> Bool {
        text.utf8.count <= maximumLength && ChannelIDSyntax.isWellFormed(text)
    }
}
