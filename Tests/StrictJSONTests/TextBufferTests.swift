import StrictJSON
import Testing

struct TextBufferTests {
    @Test func appendsGrowPastTheInitialCapacityAndKeepEveryByte() {
        var buffer = TextBuffer(capacity: 1)
        var expected: [UInt8] = []
        for round in 0..<200 {
            buffer.append(UInt8(truncatingIfNeeded: round))
            expected.append(UInt8(truncatingIfNeeded: round))
            buffer.append("é\(round)")
            expected += Array("é\(round)".utf8)
            let chunk = [UInt8](repeating: UInt8(truncatingIfNeeded: round), count: round % 37)
            buffer.append(chunk)
            expected += chunk
        }
        buffer.append(StaticString("end"))
        expected += Array("end".utf8)
        #expect(buffer.count == expected.count)
        #expect(buffer.bytes == expected)
    }

    @Test func writeAtMostCountsWhatTheWriterReportsWithinItsBound() {
        var buffer = TextBuffer(capacity: 16)
        buffer.write(atMost: 4) { out in
            out[0] = UInt8(ascii: "a")
            out[1] = UInt8(ascii: "b")
            return 2
        }
        buffer.write(atMost: 3) { _ in 99 }  // More than reserved: clamped to the bound.
        buffer.write(atMost: 3) { _ in -1 }  // Negative: nothing.
        #expect(buffer.count == 5)
        #expect(Array(buffer.bytes.prefix(2)) == Array("ab".utf8))
    }

    @Test func decimalsAreWrittenWithoutLeadingZeros() {
        for value: UInt64 in [0, 7, 10, 99, 100, 1_000_000, UInt64.max] {
            var buffer = TextBuffer(capacity: 1)
            buffer.appendDecimal(value)
            #expect(buffer.bytes == Array(String(value).utf8))
        }
    }
}

struct BorrowedUTF8Tests {
    /// Small (inline) strings, heap strings, non-ASCII and a string made from a substring all
    /// hand out exactly their UTF-8.
    @Test func handsOutTheStringsUTF8() {
        let long = String(repeating: "héllo wörld ", count: 20)
        let texts = ["", "apns-id", "ü", long, String(long.dropFirst(3).prefix(30)), "x\u{0}y"]
        for text in texts {
            #expect(text.withBorrowedUTF8 { Array($0) } == Array(text.utf8), "\(text)")
        }
    }
}
