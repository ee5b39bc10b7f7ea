import Testing

import JWTVerify

@Suite struct ConstantTimeTests {
    @Test func comparesContent() {
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([0, 2, 3], [1, 2, 3]))
    }

    @Test func differentLengthsAreUnequal() {
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(!ConstantTime.equals([], [0]))
        #expect(ConstantTime.equals([UInt8](), [UInt8]()))
    }

    @Test func acceptsAnyByteCollections() {
        #expect(ConstantTime.equals("abc".utf8, [UInt8(97), 98, 99]))
        #expect(ConstantTime.equals([9, 1, 2, 3][1...], [1, 2, 3]))
    }
}
