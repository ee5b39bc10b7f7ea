/// Hex digits checked eight bytes per step, for the values checked on every push: device
/// tokens (in the mock, the client and the gateway) and the gateway's HMAC tags.
///
/// ```swift
/// HexDigits.areHex(bytes, allowingUppercase: false)  // true for "0f3c", false for "0F3C"
/// ```
public enum HexDigits {
    /// Whether `bytes` is a non-empty run of hex digits; uppercase `A`–`F` only when
    /// `allowingUppercase`.
    public static func areHex(_ bytes: UnsafeBufferPointer<UInt8>, allowingUppercase: Bool) -> Bool {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return false }
        var index = 0
        while index + 8 <= bytes.count {
            let word = UInt64(littleEndian: UnsafeRawPointer(base).loadUnaligned(fromByteOffset: index, as: UInt64.self))
            // Lowercasing leaves digits and a-f as they are, so a lowercase word is its own fold.
            guard let folded = lowercased(word), allowingUppercase || folded == word else { return false }
            index += 8
        }
        while index < bytes.count {
            guard let folded = lowercased(bytes[index]), allowingUppercase || folded == bytes[index] else { return false }
            index += 1
        }
        return true
    }

    /// The eight bytes of `word` in lowercase, when every one is a hex digit; else nil.
    ///
    /// For bytes below 0x80, adding `0x80 - low` sets a byte's high bit exactly when it is
    /// at least `low`, and no carry crosses into the next byte.
    @inline(__always)
    static func lowercased(_ word: UInt64) -> UInt64? {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        guard word & high == 0 else { return nil }
        func inRange(_ bytes: UInt64, _ low: UInt8, _ upper: UInt8) -> UInt64 {
            let atLeastLow = bytes &+ ones &* UInt64(0x80 - low)
            let aboveUpper = bytes &+ ones &* UInt64(0x7F - upper)
            return atLeastLow & ~aboveUpper & high
        }
        // Setting bit 0x20 folds A-F onto a-f and leaves digits as they are; digits are
        // checked before folding, which would also map 0x10-0x19 onto them.
        let folded = word | ones &* 0x20
        let digits = inRange(word, UInt8(ascii: "0"), UInt8(ascii: "9"))
        let letters = inRange(folded, UInt8(ascii: "a"), UInt8(ascii: "f"))
        return digits | letters == high ? folded : nil
    }

    /// `byte` in lowercase, when it is a hex digit; else nil.
    @inline(__always)
    static func lowercased(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): byte
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte | 0x20
        default: nil
        }
    }
}
