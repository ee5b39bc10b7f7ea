internal import COpenSSL
import Synchronization

/// An HMAC-SHA-256 key prepared once and reused for every message it authenticates.
///
/// OpenSSL 3's one-shot `HMAC()` fetches the algorithm, allocates a context and derives
/// the padded key blocks on every call. A prepared key keeps one keyed context and only
/// rewinds it per message, which is what a server checking one tag per request with the
/// same secret wants. Safe to share between threads: the context is used under a lock.
///
/// ```swift
/// let key = HMACSHA256Key(Array(secret.utf8))
/// let tag = try key.authenticationCode(for: Array(body.utf8))
/// let ok = key.isValidAuthenticationCode(receivedTag, for: Array(body.utf8))
/// ```
public final class HMACSHA256Key: Sendable {
    private let context: Mutex<MACContext?>
    /// Why OpenSSL could not prepare the key, reported by every use instead of the initializer,
    /// so that holders of a key need not handle a failure that only memory exhaustion causes.
    private let preparationError: CryptoError?

    /// Prepares `key` (any length; HMAC hashes keys longer than a block).
    public init(_ key: some Collection<UInt8>) {
        do {
            context = Mutex(try MACContext(key: Array(key)))
            preparationError = nil
        } catch {
            context = Mutex(nil)
            preparationError = error
        }
    }

    /// Computes the full 32-byte tag of `message`.
    ///
    /// - Throws: ``CryptoError`` if OpenSSL fails, now or when the key was prepared (not for any input).
    public func authenticationCode(for message: some Collection<UInt8>) throws(CryptoError) -> [UInt8] {
        if let preparationError { throw preparationError }
        let computed = message.withContiguousStorageIfAvailable { bytes in
            context.withLock { $0?.tag(of: UnsafeRawBufferPointer(bytes)) }
        } ?? Array(message).withUnsafeBytes { bytes in context.withLock { $0?.tag(of: bytes) } }
        guard let computed else { throw CryptoError("HMAC") }
        return try computed.get()
    }

    /// Whether `code` is the tag of `message`, truncated to `byteCount` bytes, compared in
    /// constant time; see ``HMACSHA256/isValidAuthenticationCode(_:for:using:byteCount:)``.
    public func isValidAuthenticationCode(
        _ code: some Collection<UInt8>,
        for message: some Collection<UInt8>,
        byteCount: Int = HMACSHA256.byteCount
    ) -> Bool {
        guard (HMACSHA256.minimumTruncatedByteCount...HMACSHA256.byteCount).contains(byteCount), code.count == byteCount else {
            return false
        }
        guard let expected = try? authenticationCode(for: message) else { return false }
        return ConstantTime.equals(expected.prefix(byteCount), code)
    }
}

/// Owns one keyed `EVP_MAC_CTX*` for HMAC-SHA-256.
///
/// `@unchecked Sendable`: it lives behind ``HMACSHA256Key``'s mutex, so one thread at a
/// time uses it.
private final class MACContext: @unchecked Sendable {
    private let pointer: OpaquePointer

    init(key: [UInt8]) throws(CryptoError) {
        guard let algorithm = EVP_MAC_fetch(nil, "HMAC", nil) else { throw CryptoError("EVP_MAC_fetch(HMAC)") }
        // The context holds its own reference to the algorithm.
        defer { EVP_MAC_free(algorithm) }
        guard let pointer = EVP_MAC_CTX_new(algorithm) else { throw CryptoError("EVP_MAC_CTX_new") }
        self.pointer = pointer
        var digest = Array("SHA256".utf8CString)
        // A zero-length key still needs a valid pointer: a null one means "keep the old key".
        let keyBytes = key.isEmpty ? [0] : key
        let keyed = digest.withUnsafeMutableBufferPointer { digest in
            keyBytes.withUnsafeBufferPointer { keyBuffer in
                "digest".withCString { name in
                    var parameters = [OSSL_PARAM_construct_utf8_string(name, digest.baseAddress, 0), OSSL_PARAM_construct_end()]
                    return EVP_MAC_init(pointer, keyBuffer.baseAddress, key.count, &parameters)
                }
            }
        }
        guard keyed == 1 else { throw CryptoError("EVP_MAC_init") }
    }

    deinit {
        EVP_MAC_CTX_free(pointer)
    }

    /// The tag of `message`; rewinds to the keyed state first (a null key keeps the key).
    func tag(of message: UnsafeRawBufferPointer) -> Result<[UInt8], CryptoError> {
        var tag = [UInt8](repeating: 0, count: HMACSHA256.byteCount)
        var written = 0
        let ok = tag.withUnsafeMutableBufferPointer { output in
            EVP_MAC_init(pointer, nil, 0, nil) == 1
                && EVP_MAC_update(pointer, message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count) == 1
                && EVP_MAC_final(pointer, output.baseAddress, &written, output.count) == 1
        }
        guard ok, written == HMACSHA256.byteCount else { return .failure(CryptoError("HMAC")) }
        return .success(tag)
    }
}
