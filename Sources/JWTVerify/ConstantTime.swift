internal import COpenSSL

/// Comparisons whose running time does not depend on the bytes compared.
public enum ConstantTime {
    /// Whether `lhs` and `rhs` hold the same bytes. The time taken depends only on the
    /// lengths, which are not treated as secret: different lengths return `false` at once.
    ///
    /// ```swift
    /// guard ConstantTime.equals(expectedTag, receivedTag) else { throw Unauthorized() }
    /// ```
    public static func equals(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if lhs.isEmpty { return true }
        let left = Array(lhs)
        let right = Array(rhs)
        return left.withUnsafeBytes { a in
            right.withUnsafeBytes { b in
                CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0
            }
        }
    }
}
