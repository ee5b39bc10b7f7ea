/// HMAC with SHA-256 (RFC 2104), for the gateway's request signing: one-shot forms.
///
/// A key used for many messages is cheaper prepared once as an ``HMACSHA256Key``.
///
/// ```swift
/// let tag = try HMACSHA256.authenticationCode(for: Array(body.utf8), using: secret)
/// let ok = HMACSHA256.isValidAuthenticationCode(receivedTag, for: Array(body.utf8), using: secret)
/// ```
public enum HMACSHA256 {
    /// Bytes in a full HMAC-SHA-256 tag.
    public static let byteCount = 32
    /// The shortest truncated tag accepted, 128 bits (NIST SP 800-107 guidance is to keep
    /// at least half of the hash output).
    public static let minimumTruncatedByteCount = 16

    /// Computes the full 32-byte tag of `message` under `key`.
    ///
    /// - Throws: ``CryptoError`` if OpenSSL fails (not for any input).
    public static func authenticationCode(
        for message: some Collection<UInt8>,
        using key: some Collection<UInt8>
    ) throws(CryptoError) -> [UInt8] {
        try HMACSHA256Key(key).authenticationCode(for: message)
    }

    /// Whether `code` is the HMAC-SHA-256 tag of `message` under `key`, truncated to
    /// `byteCount` bytes, compared in constant time.
    ///
    /// - Parameters:
    ///   - code: The received tag. Its length must equal `byteCount`, so a shortened tag
    ///     cannot pass by accident.
    ///   - byteCount: The agreed tag length, from ``minimumTruncatedByteCount`` to
    ///     ``byteCount`` (the default). Values outside that range make every tag invalid.
    public static func isValidAuthenticationCode(
        _ code: some Collection<UInt8>,
        for message: some Collection<UInt8>,
        using key: some Collection<UInt8>,
        byteCount: Int = HMACSHA256.byteCount
    ) -> Bool {
        HMACSHA256Key(key).isValidAuthenticationCode(code, for: message, byteCount: byteCount)
    }
}
