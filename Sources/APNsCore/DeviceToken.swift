import StrictJSON

/// A device token: hex digits of any even length, compared without regard to case.
///
/// Apple says to assume nothing about the length; 64 hex digits is common, and 96, 108
/// and 160 have been seen. The stored form is lowercase.
public struct DeviceToken: Hashable, Sendable, CustomStringConvertible {
    /// The token in lowercase hex.
    public let hex: String

    /// Parses a token; nil unless it is a non-empty, even-length string of hex digits.
    public init?(_ text: some StringProtocol) {
        // Native strings and substrings hand out their contiguous bytes; others are copied once.
        guard let token = text.utf8.withContiguousStorageIfAvailable({ DeviceToken(hexUTF8: $0) })
            ?? Array(text.utf8).withUnsafeBufferPointer({ DeviceToken(hexUTF8: $0) })
        else { return nil }
        self = token
    }

    /// Parses a token from its UTF-8 bytes; nil unless they are a non-empty, even-length
    /// run of hex digits. The push path's form: it reads the bytes where they lie.
    public init?(hexUTF8 bytes: UnsafeBufferPointer<UInt8>) {
        let count = bytes.count
        guard count > 0, count % 2 == 0, let input = bytes.baseAddress else { return nil }
        var valid = true
        let hex = String(unsafeUninitializedCapacity: count) { lowered in
            guard let output = lowered.baseAddress else {
                valid = false
                return 0
            }
            // Eight digits per step: a byte-by-byte switch over a 64-digit token would be
            // most of the path check, which runs for every push.
            var index = 0
            while index + 8 <= count {
                let word = UInt64(littleEndian: UnsafeRawPointer(input).loadUnaligned(fromByteOffset: index, as: UInt64.self))
                guard let folded = HexDigits.lowercased(word) else {
                    valid = false
                    return 0
                }
                UnsafeMutableRawPointer(output).storeBytes(of: folded.littleEndian, toByteOffset: index, as: UInt64.self)
                index += 8
            }
            while index < count {
                guard let folded = HexDigits.lowercased(input[index]) else {
                    valid = false
                    return 0
                }
                output[index] = folded
                index += 1
            }
            return count
        }
        guard valid else { return nil }
        self.hex = hex
    }

    /// The token with all but its first and last four digits hidden, for logs and reports.
    public var masked: String {
        withMaskedUTF8 { String(decoding: $0, as: UTF8.self) }
    }

    /// Hands `body` the UTF-8 of ``masked`` from the stack: a server that logs every push
    /// writes it straight into its line instead of allocating a `String` for it.
    ///
    /// ```swift
    /// token.withMaskedUTF8 { line.append($0) }  // "abcd…6789"
    /// ```
    @inlinable
    public func withMaskedUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        // Hex is ASCII: counting bytes is counting characters, without grapheme breaking.
        let count = hex.utf8.count
        let ellipsis: (UInt8, UInt8, UInt8) = (0xE2, 0x80, 0xA6)  // "…"
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(count, 11)) { output in
            guard count > 8 else {
                // Short enough that four digits at each end would show it whole.
                for index in 0..<count { output[index] = UInt8(ascii: "*") }
                return body(UnsafeBufferPointer(rebasing: output[0..<count]))
            }
            // From the contiguous bytes: `utf8.suffix(4)` walks the view index by index.
            hex.withBorrowedUTF8 { digits in
                for index in 0..<4 {
                    output[index] = digits[index]
                    output[7 + index] = digits[count - 4 + index]
                }
            }
            (output[4], output[5], output[6]) = ellipsis
            return body(UnsafeBufferPointer(rebasing: output[0..<11]))
        }
    }

    public var description: String { hex }
}
