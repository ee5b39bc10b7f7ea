import Testing

@testable import JWTVerify

@Suite struct ECDSASignatureCodecTests {
    static let order = [UInt8](hex: "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")

    func inRange(_ scalar: [UInt8]) -> Bool {
        scalar.withUnsafeBytes { ECDSASignatureCodec.isScalarInRange($0.baseAddress!) }
    }

    @Test func rangeIsOneThroughOrderMinusOne() {
        var orderMinusOne = Self.order
        orderMinusOne[31] -= 1
        #expect(!inRange([UInt8](repeating: 0, count: 32)))
        #expect(inRange([UInt8](repeating: 0, count: 31) + [1]))
        #expect(inRange(orderMinusOne))
        #expect(!inRange(Self.order))
        #expect(!inRange([UInt8](repeating: 0xFF, count: 32)))
    }

    func der(_ raw: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: ECDSASignatureCodec.maximumDERByteCount)
        let count = raw.withUnsafeBytes { rawBytes in
            output.withUnsafeMutableBufferPointer { ECDSASignatureCodec.writeDER(rawSignature: rawBytes.baseAddress!, into: $0.baseAddress!) }
        }
        return Array(output.prefix(count))
    }

    @Test func writesMinimalDERIntegers() {
        let small = [UInt8](repeating: 0, count: 31) + [1] + [UInt8](repeating: 0, count: 31) + [0x7F]
        #expect(der(small) == [0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x7F])
        let high = [UInt8](repeating: 0x80, count: 64)
        let encoded = der(high)
        #expect(encoded.count == 72)
        #expect(Array(encoded.prefix(5)) == [0x30, 0x46, 0x02, 0x21, 0x00])
        let zeroR = [UInt8](repeating: 0, count: 32) + [UInt8](repeating: 1, count: 32)
        #expect(Array(der(zeroR).prefix(5)) == [0x30, 0x25, 0x02, 0x01, 0x00])
    }

    @Test func derRoundTripsThroughTheParser() {
        for seed in 0..<50 {
            var raw = (0..<64).map { UInt8(truncatingIfNeeded: ($0 &* 73) ^ (seed &* 131)) }
            if seed % 3 == 0 { raw.replaceSubrange(0..<(seed % 20), with: repeatElement(0, count: seed % 20)) }
            if seed % 5 == 0 { raw[32] = 0xFF }
            let encoded = der(raw)
            let decoded = encoded.withUnsafeBufferPointer { ECDSASignatureCodec.rawSignature(fromDER: $0) }
            #expect(decoded == raw)
        }
    }

    @Test func parserRejectsMalformedDER() {
        let cases: [[UInt8]] = [
            [], [0x30, 0x00], [0x31, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01],
            [0x30, 0x07, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01], [0x30, 0x06, 0x02, 0x01, 0x01, 0x03, 0x01, 0x01],
            [0x30, 0x26, 0x02, 0x22] + [UInt8](repeating: 1, count: 34) + [0x02, 0x00],
        ]
        for bytes in cases {
            #expect(bytes.withUnsafeBufferPointer { ECDSASignatureCodec.rawSignature(fromDER: $0) } == nil)
        }
    }
}
