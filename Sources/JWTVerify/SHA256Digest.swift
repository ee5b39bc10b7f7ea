internal import COpenSSL
import OpenSSLSupport
import Synchronization

/// SHA-256 for short inputs such as a JWT's signing input.
///
/// OpenSSL 3's one-shot `SHA256()` fetches the algorithm and allocates a context on every
/// call, which makes hashing a token about three times as dear as with the fetched
/// algorithm and pooled contexts used here. If that path ever fails, the one-shot function
/// is the fallback.
enum SHA256Digest {
    static let byteCount = 32

    private static let algorithm = FetchedDigest.fetch("SHA256")
    private static let contexts = Mutex<[DigestContext]>([])

    /// Hashes `input` into the 32 bytes at `output`.
    static func hash(_ input: UnsafeRawBufferPointer, into output: UnsafeMutablePointer<UInt8>) {
        if let algorithm, let context = contexts.withLock({ $0.popLast() }) ?? DigestContext.make() {
            let ok =
                EVP_DigestInit_ex2(context.pointer, algorithm.pointer, nil) == 1
                && EVP_DigestUpdate(context.pointer, input.baseAddress, input.count) == 1
                && EVP_DigestFinal_ex(context.pointer, output, nil) == 1
            if ok {
                contexts.withLock { pool in
                    if pool.count < PKeyContextPool.capacity { pool.append(context) }
                }
                return
            }
            OpenSSLErrorQueue.clear()
        }
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
