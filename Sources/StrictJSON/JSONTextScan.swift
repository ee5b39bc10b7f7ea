/// Finds, eight bytes at a time, where a run of plain JSON string text ends: the parser's
/// string scan and the capture encoder's escaping both spend most of their time in runs
/// that need nothing, and a byte-at-a-time loop over them would be the costliest loop of a push.
public enum JSONTextScan {
    /// The index of the first byte at or after `index` that is a quote, a backslash or below
    /// `controlBelow`; `count` if there is none. ORs every byte it passes into `skipped`, so
    /// a caller can tell whether any of them was 0x80 or more.
    ///
    /// Uses the "has a byte less than n" and "has a zero byte" word tricks of
    /// ``specialBytes(in:controlBelow:)``.
    @inlinable @inline(__always)
    public static func firstSpecial(
        _ input: UnsafePointer<UInt8>, from index: Int, count: Int, controlBelow: UInt8, skipped: inout UInt64
    ) -> Int {
        var index = index
        let raw = UnsafeRawPointer(input)
        while index + 8 <= count {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            let special = specialBytes(in: word, controlBelow: controlBelow)
            if special != 0 {
                let plainBytes = special.trailingZeroBitCount >> 3
                // Only the bytes before the hit were passed (a shift by less than 64 bits).
                skipped |= word & ((1 &<< (UInt64(plainBytes) &* 8)) &- 1)
                return index + plainBytes
            }
            skipped |= word
            index += 8
        }
        while index < count {
            let byte = input[index]
            if byte < controlBelow || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return index }
            skipped |= UInt64(byte)
            index += 1
        }
        return count
    }

    /// The high bit of each byte of `word` (little-endian: byte n is bits 8n...8n+7) that is a
    /// quote, a backslash or below `controlBelow`, exact up to the lowest one: bytes above a real
    /// hit may be flagged falsely, so callers use only `trailingZeroBitCount`.
    @inlinable @inline(__always)
    public static func specialBytes(in word: UInt64, controlBelow: UInt8) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let below = ones &* UInt64(controlBelow)
        let quotes = word ^ (ones &* 0x22)
        let backslashes = word ^ (ones &* 0x5C)
        return ((word &- below) | (quotes &- ones) | (backslashes &- ones)) & ~word & 0x8080_8080_8080_8080
    }

    /// Whether a byte ORed into `skipped` by ``firstSpecial(_:from:count:controlBelow:skipped:)``
    /// was 0x80 or more (that is, the text passed was not all ASCII).
    @inlinable
    public static func sawNonASCII(_ skipped: UInt64) -> Bool {
        skipped & 0x8080_8080_8080_8080 != 0
    }
}
