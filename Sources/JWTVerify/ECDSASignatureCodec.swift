/// Converts P-256 ECDSA signatures between JOSE's raw `r||s` form and the DER form that
/// OpenSSL signs and verifies, without allocating `ECDSA_SIG`/`BIGNUM` objects.
enum ECDSASignatureCodec {
    /// Bytes in one scalar of P-256.
    static let scalarByteCount = 32
    /// Bytes in a raw `r||s` signature.
    static let rawByteCount = 64
    /// The longest DER a P-256 signature can take: SEQUENCE header (2) plus two INTEGERs of
    /// at most 33 content bytes each (2 + 33).
    static let maximumDERByteCount = 72

    /// The order n of the P-256 group, big-endian.
    private static let groupOrder: (UInt64, UInt64, UInt64, UInt64) = (
        0xFFFF_FFFF_0000_0000, 0xFFFF_FFFF_FFFF_FFFF, 0xBCE6_FAAD_A717_9E84, 0xF3B9_CAC2_FC63_2551
    )

    /// Whether the 32 big-endian bytes at `scalar` are in 1...n-1, as ECDSA requires of r and s.
    static func isScalarInRange(_ scalar: UnsafeRawPointer) -> Bool {
        let words = (
            UInt64(bigEndian: scalar.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
            UInt64(bigEndian: scalar.loadUnaligned(fromByteOffset: 8, as: UInt64.self)),
            UInt64(bigEndian: scalar.loadUnaligned(fromByteOffset: 16, as: UInt64.self)),
            UInt64(bigEndian: scalar.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
        )
        if words.0 | words.1 | words.2 | words.3 == 0 { return false }
        let order = groupOrder
        if words.0 != order.0 { return words.0 < order.0 }
        if words.1 != order.1 { return words.1 < order.1 }
        if words.2 != order.2 { return words.2 < order.2 }
        return words.3 < order.3
    }

    /// Whether both halves of a 64-byte raw signature are in range.
    static func isRawSignatureInRange(_ raw: UnsafeRawPointer) -> Bool {
        isScalarInRange(raw) && isScalarInRange(raw + scalarByteCount)
    }

    /// Writes the DER form of the 64-byte raw signature at `raw` into `output`, which must
    /// hold ``maximumDERByteCount`` bytes, and returns the number of bytes written.
    static func writeDER(rawSignature raw: UnsafeRawPointer, into output: UnsafeMutablePointer<UInt8>) -> Int {
        var offset = 2
        offset += writeDERInteger(raw, into: output + offset)
        offset += writeDERInteger(raw + scalarByteCount, into: output + offset)
        output[0] = 0x30
        output[1] = UInt8(offset - 2)
        return offset
    }

    /// Writes one 32-byte big-endian scalar as a minimal DER INTEGER.
    private static func writeDERInteger(_ scalar: UnsafeRawPointer, into output: UnsafeMutablePointer<UInt8>) -> Int {
        let bytes = scalar.assumingMemoryBound(to: UInt8.self)
        var start = 0
        // Keep the last byte even when zero: INTEGER 0 is one 0x00 byte.
        while start < scalarByteCount - 1 && bytes[start] == 0 { start += 1 }
        let needsPad = bytes[start] & 0x80 != 0
        let length = scalarByteCount - start + (needsPad ? 1 : 0)
        output[0] = 0x02
        output[1] = UInt8(length)
        var position = 2
        if needsPad {
            output[position] = 0
            position += 1
        }
        (output + position).update(from: bytes + start, count: scalarByteCount - start)
        return 2 + length
    }

    /// Reads a DER signature as produced by OpenSSL into raw `r||s`, or returns `nil` if
    /// it is not a well-formed P-256 signature.
    static func rawSignature(fromDER der: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard der.count >= 8, der[0] == 0x30, Int(der[1]) == der.count - 2 else { return nil }
        var raw = [UInt8](repeating: 0, count: rawByteCount)
        var offset = 2
        for half in 0..<2 {
            guard offset + 2 <= der.count, der[offset] == 0x02 else { return nil }
            var length = Int(der[offset + 1])
            offset += 2
            guard length >= 1, offset + length <= der.count else { return nil }
            var start = offset
            while length > scalarByteCount, der[start] == 0 {
                start += 1
                length -= 1
            }
            guard length <= scalarByteCount else { return nil }
            let destination = half * scalarByteCount + scalarByteCount - length
            for index in 0..<length {
                raw[destination + index] = der[start + index]
            }
            offset = start + length
        }
        return offset == der.count ? raw : nil
    }
}
