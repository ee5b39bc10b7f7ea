import APNsCore
import Testing

@Suite struct HexDigitsTests {
    /// The rule byte by byte, for comparison.
    static func reference(_ bytes: [UInt8], allowingUppercase: Bool) -> Bool {
        !bytes.isEmpty && bytes.allSatisfy {
            ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f"))
                || (allowingUppercase && $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "F"))
        }
    }

    @Test(arguments: [false, true])
    func everyByteInEveryPositionOfAWordAndOfTheTail(allowingUppercase: Bool) {
        // 11 bytes: one eight-byte word, then three checked one at a time.
        for position in 0..<11 {
            for byte in UInt8.min...UInt8.max {
                var bytes = Array("0123456789a".utf8)
                bytes[position] = byte
                let checked = bytes.withUnsafeBufferPointer { HexDigits.areHex($0, allowingUppercase: allowingUppercase) }
                #expect(checked == Self.reference(bytes, allowingUppercase: allowingUppercase), "byte \(byte) at \(position)")
            }
        }
    }

    @Test func anEmptyRunIsNotHex() {
        #expect(![UInt8]().withUnsafeBufferPointer { HexDigits.areHex($0, allowingUppercase: true) })
    }
}
