import StrictJSON
import Testing

/// The word-at-a-time scan must find exactly what a byte-at-a-time loop finds.
struct JSONTextScanTests {
    /// The reference: the first quote, backslash or byte below `controlBelow`, and whether a
    /// byte of 0x80 or more came before it.
    static func reference(_ bytes: [UInt8], from start: Int, controlBelow: UInt8) -> (Int, Bool) {
        var nonASCII = false
        for index in start..<bytes.count {
            let byte = bytes[index]
            if byte < controlBelow || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return (index, nonASCII) }
            if byte >= 0x80 { nonASCII = true }
        }
        return (bytes.count, nonASCII)
    }

    static func scan(_ bytes: [UInt8], from start: Int, controlBelow: UInt8) -> (Int, Bool) {
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return (0, false) }
            var skipped: UInt64 = 0
            let index = JSONTextScan.firstSpecial(base, from: start, count: buffer.count, controlBelow: controlBelow, skipped: &skipped)
            return (index, JSONTextScan.sawNonASCII(skipped))
        }
    }

    @Test(arguments: [UInt8(0), 0x20, 0x21])
    func findsEverySpecialByteAtEveryOffsetLikeAByteLoop(controlBelow: UInt8) {
        // Each special byte, alone or after a non-ASCII byte, at every offset of a 20-byte run
        // (so in the first word, the second, and the tail the word loop leaves).
        let specials: [UInt8] = [0x22, 0x5C, 0x00, 0x1F, 0x20, 0x0A]
        for special in specials {
            for offset in 0..<20 {
                for highAt in [nil, 0, offset / 2, offset + 1] as [Int?] {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 20)
                    if let highAt, highAt < bytes.count { bytes[highAt] = 0xC3 }
                    bytes[offset] = special
                    for start in [0, 1, 7] where start <= offset {
                        let expected = Self.reference(bytes, from: start, controlBelow: controlBelow)
                        let found = Self.scan(bytes, from: start, controlBelow: controlBelow)
                        #expect(found == expected, "special \(special) at \(offset), 0xC3 at \(String(describing: highAt)), from \(start)")
                    }
                }
            }
        }
    }

    @Test func bytesAboveTheHitDoNotCountAsPassed() {
        // A quote at offset 2 of a word whose later bytes are non-ASCII: those were not passed.
        let bytes: [UInt8] = [0x61, 0x62, 0x22, 0xC3, 0xA9, 0xC3, 0xA9, 0x61, 0x61]
        #expect(Self.scan(bytes, from: 0, controlBelow: 0x20) == (2, false))
        #expect(Self.scan(Array(bytes[3...]), from: 0, controlBelow: 0x20) == (6, true))
    }

    @Test func aRunWithoutSpecialBytesEndsAtTheCount() {
        let bytes = Array("plain text that needs no escape, é included".utf8)
        #expect(Self.scan(bytes, from: 0, controlBelow: 0x20) == (bytes.count, true))
        #expect(Self.scan(Array("ascii only, 27 bytes long..".utf8), from: 3, controlBelow: 0x20) == (27, false))
    }
}
