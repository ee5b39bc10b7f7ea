internal import COpenSSL
import Synchronization

/// An HMAC-SHA-256 key prepared once and reused for every message it authenticates.
///
/// HMAC is `H((K ^ opad) || H((K ^ ipad) || message))`. A prepared key absorbs the two
/// padded key blocks into SHA-256 states once; each message then starts from copies of
/// those states, so it costs only the compressions of the message and of the inner digest.
/// Going to the digest contexts directly also skips the `EVP_MAC` layer (parameter
/// handling, a context rewind and a size query per message), and checking a tag computes
/// the expected one on the stack instead of in an array. Safe to share between threads:
/// the contexts are used under a lock.
///
/// ```swift
/// let key = HMACSHA256Key(Array(secret.utf8))
/// let tag = try key.authenticationCode(for: Array(body.utf8))
/// let ok = key.isValidAuthenticationCode(receivedTag, for: Array(body.utf8))
/// ```
public final class HMACSHA256Key: Sendable {
    private let state: Mutex<PaddedKeyState?>
    /// Why OpenSSL could not prepare the key, reported by every use instead of the initializer,
    /// so that holders of a key need not handle a failure that only memory exhaustion causes.
    private let preparationError: CryptoError?

    /// Prepares `key` (any length; keys longer than a SHA-256 block are hashed first, as RFC 2104 says).
    public init(_ key: some Collection<UInt8>) {
        do {
            state = Mutex(try PaddedKeyState(key: Array(key)))
            preparationError = nil
        } catch {
            state = Mutex(nil)
            preparationError = error
        }
    }

    /// Computes the full 32-byte tag of `message`.
    ///
    /// - Throws: ``CryptoError`` if OpenSSL fails, now or when the key was prepared (not for any input).
    public func authenticationCode(for message: some Collection<UInt8>) throws(CryptoError) -> [UInt8] {
        if let preparationError { throw preparationError }
        var computed = false
        let tag = [UInt8](unsafeUninitializedCapacity: HMACSHA256.byteCount) { buffer, count in
            guard let output = buffer.baseAddress else { return }
            computed = writeTag(of: message, to: output)
            count = computed ? HMACSHA256.byteCount : 0
        }
        guard computed else { throw CryptoError("HMAC") }
        return tag
    }

    /// Whether `code` is the tag of `message`, truncated to `byteCount` bytes, compared in
    /// constant time; see ``HMACSHA256/isValidAuthenticationCode(_:for:using:byteCount:)``.
    public func isValidAuthenticationCode(
        _ code: some Collection<UInt8>,
        for message: some Collection<UInt8>,
        byteCount: Int = HMACSHA256.byteCount
    ) -> Bool {
        guard preparationError == nil,
              (HMACSHA256.minimumTruncatedByteCount...HMACSHA256.byteCount).contains(byteCount),
              code.count == byteCount
        else { return false }
        // The expected tag lives on the stack, and a contiguous received tag (the usual
        // array) is compared in place, so a check allocates nothing of its own;
        // ConstantTime.equals would copy both sides into arrays.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: HMACSHA256.byteCount) { expected in
            guard let expectedBytes = expected.baseAddress, writeTag(of: message, to: expectedBytes) else { return false }
            return code.withContiguousStorageIfAvailable { received in
                guard let receivedBytes = received.baseAddress else { return false }
                return CRYPTO_memcmp(expectedBytes, receivedBytes, byteCount) == 0
            } ?? ConstantTime.equals(expected.prefix(byteCount), code)
        }
    }

    /// Writes the 32-byte tag of `message` to `output`; `false` if OpenSSL failed.
    private func writeTag(of message: some Collection<UInt8>, to output: UnsafeMutablePointer<UInt8>) -> Bool {
        message.withContiguousStorageIfAvailable { bytes in
            writeTag(ofContiguous: UnsafeRawBufferPointer(bytes), to: output)
        } ?? Array(message).withUnsafeBytes { writeTag(ofContiguous: $0, to: output) }
    }

    private func writeTag(ofContiguous message: UnsafeRawBufferPointer, to output: UnsafeMutablePointer<UInt8>) -> Bool {
        state.withLock { $0?.tag(of: message, into: output) ?? false }
    }
}

/// The SHA-256 states after the inner and outer padded key blocks, and a working context
/// the messages are hashed in.
///
/// `@unchecked Sendable`: it lives behind ``HMACSHA256Key``'s mutex, so one thread at a
/// time uses it.
private final class PaddedKeyState: @unchecked Sendable {
    private static let blockByteCount = 64
    /// Fetched once for every key, as one-shot ``HMACSHA256`` calls prepare a key each.
    private static let sha256 = FetchedDigest.fetch("SHA256")
    private let inner: DigestContext
    private let outer: DigestContext
    private let work: DigestContext

    init(key: [UInt8]) throws(CryptoError) {
        guard let sha256 = Self.sha256 else { throw CryptoError("EVP_MD_fetch(SHA256)") }
        guard let inner = DigestContext.make(), let outer = DigestContext.make(), let work = DigestContext.make() else {
            throw CryptoError("EVP_MD_CTX_new")
        }
        let keyed = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.blockByteCount) { block in
            // The padded key blocks are secret: wiped however this returns.
            defer { OPENSSL_cleanse(block.baseAddress, block.count) }
            Self.loadKeyBlock(key, into: block)
            return Self.absorb(block, xoredWith: 0x36, into: inner, digest: sha256)
                && Self.absorb(block, xoredWith: 0x36 ^ 0x5c, into: outer, digest: sha256)
        }
        guard keyed else { throw CryptoError("SHA-256 of the HMAC key pads") }
        self.inner = inner
        self.outer = outer
        self.work = work
    }

    /// Writes RFC 2104's K0 into `block`: the key zero-padded to a block, or its SHA-256
    /// digest, zero-padded, if the key is longer than a block.
    private static func loadKeyBlock(_ key: [UInt8], into block: UnsafeMutableBufferPointer<UInt8>) {
        block.initialize(repeating: 0)
        guard key.count > blockByteCount else {
            _ = block.initialize(from: key)
            return
        }
        guard let start = block.baseAddress else { return }
        key.withUnsafeBytes { SHA256Digest.hash($0, into: start) }
    }

    /// XORs every byte of `block` with `pad` in place, then starts `context` on the result.
    private static func absorb(
        _ block: UnsafeMutableBufferPointer<UInt8>,
        xoredWith pad: UInt8,
        into context: DigestContext,
        digest: FetchedDigest
    ) -> Bool {
        for index in block.indices { block[index] ^= pad }
        return EVP_DigestInit_ex2(context.pointer, digest.pointer, nil) == 1
            && EVP_DigestUpdate(context.pointer, block.baseAddress, block.count) == 1
    }

    /// Writes the 32-byte tag of `message` to `output`. The inner digest is written there
    /// first: the outer update has copied it before the final overwrites it. Each copy of a
    /// padded state is one allocation inside OpenSSL 3.0 (`dupctx`); nothing else allocates.
    func tag(of message: UnsafeRawBufferPointer, into output: UnsafeMutablePointer<UInt8>) -> Bool {
        var innerLength: UInt32 = 0
        var outerLength: UInt32 = 0
        return EVP_MD_CTX_copy_ex(work.pointer, inner.pointer) == 1
            && EVP_DigestUpdate(work.pointer, message.baseAddress, message.count) == 1
            && EVP_DigestFinal_ex(work.pointer, output, &innerLength) == 1
            && innerLength == HMACSHA256.byteCount
            && EVP_MD_CTX_copy_ex(work.pointer, outer.pointer) == 1
            && EVP_DigestUpdate(work.pointer, output, HMACSHA256.byteCount) == 1
            && EVP_DigestFinal_ex(work.pointer, output, &outerLength) == 1
            && outerLength == HMACSHA256.byteCount
    }
}
