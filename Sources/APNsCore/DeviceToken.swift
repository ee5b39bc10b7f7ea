/// A device token: hex digits of any even length, compared without regard to case.
///
/// Apple says to assume nothing about the length; 64 hex digits is common, and 96, 108
/// and 160 have been seen. The stored form is lowercase.
public struct DeviceToken: Hashable, Sendable, CustomStringConvertible {
    /// The token in lowercase hex.
    public let hex: String

    /// Parses a token; nil unless it is a non-empty, even-length string of hex digits.
    public init?(_ text: some StringProtocol) {
        var lowered: [UInt8] = []
        lowered.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): lowered.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): lowered.append(byte | 0x20)
            default: return nil
            }
        }
        guard !lowered.isEmpty, lowered.count % 2 == 0 else { return nil }
        hex = String(decoding: lowered, as: UTF8.self)
    }

    /// The token with all but its first and last four digits hidden, for logs and reports.
    public var masked: String {
        guard hex.count > 8 else { return String(repeating: "*", count: hex.count) }
        return "\(hex.prefix(4))…\(hex.suffix(4))"
    }

    public var description: String { hex }
}
