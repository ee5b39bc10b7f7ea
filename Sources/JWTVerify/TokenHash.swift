/// A seeded 64-bit hash of a token for cache indexing.
///
/// It mixes the length and the last 24 bytes only. Those bytes lie in the base64url ES256
/// signature, which is random per token, so they spread tokens well; and because only
/// verified tokens are inserted, nobody can fill the cache with crafted collisions.
/// Shorter inputs are hashed whole.
enum TokenHash {
    static let tailByteCount = 24

    @inline(__always)
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>, seed: UInt64) -> UInt64 {
        let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
        var state = seed ^ (UInt64(bytes.count) &* multiplier)
        guard let base = bytes.baseAddress else { return mix(state) }
        let raw = UnsafeRawPointer(base)
        if bytes.count >= tailByteCount {
            let tail = bytes.count - tailByteCount
            for offset in stride(from: tail, to: bytes.count, by: 8) {
                state = (state ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* multiplier
                state ^= state >> 29
            }
            return mix(state)
        }
        for index in 0..<bytes.count {
            state = (state ^ UInt64(base[index])) &* multiplier
        }
        return mix(state)
    }

    /// The MurmurHash3 finaliser, so every input bit affects every output bit.
    @inline(__always)
    private static func mix(_ value: UInt64) -> UInt64 {
        var x = value
        x ^= x >> 33
        x = x &* 0xFF51_AFD7_ED55_8CCD
        x ^= x >> 33
        x = x &* 0xC4CE_B9FE_1A85_EC53
        x ^= x >> 33
        return x
    }
}
