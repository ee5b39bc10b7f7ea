internal import COpenSSL

/// One-shot SHA-256, the cheapest OpenSSL 3 path for short inputs (no EVP fetch).
enum SHA256Digest {
    static let byteCount = 32

    /// Hashes `input` into the 32 bytes at `output`.
    static func hash(_ input: UnsafeRawBufferPointer, into output: UnsafeMutablePointer<UInt8>) {
        _ = SHA256(input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count, output)
    }

    /// Hashes `input` and returns the digest.
    static func hash(_ input: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: byteCount) { buffer, count in
            if let base = buffer.baseAddress { hash(input, into: base) }
            count = byteCount
        }
    }
}
