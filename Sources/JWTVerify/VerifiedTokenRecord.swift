/// What the mock learned from verifying one provider token, kept in the cache so that a
/// reused token costs a lookup instead of an ECDSA verify.
///
/// Only facts that do not depend on time or connection are stored; expiry, environment,
/// topic and connection rules are applied on every use.
final class VerifiedTokenRecord: Sendable {
    /// The keys a record was verified against: one per verifier, compared by identity. A
    /// connection keeps its token's record across pushes, and after the keys are replaced
    /// (a new verifier) that record must be verified again, not trusted.
    final class KeySet: Sendable {}

    /// The exact token bytes, compared in full on every cache hit.
    let tokenBytes: [UInt8]
    let keyID: String
    /// Facts copied from the key's registration, kept apart so the hot path reads them
    /// without copying (and retaining) the whole registration.
    let teamID: String
    let environments: APNsKeyEnvironmentScope
    let topics: Set<String>?
    var isTopicSpecific: Bool { topics != nil }
    /// `iat` in seconds since 1970, however it was written.
    let issuedAt: Double
    let token: DecodedJWT
    /// Warnings that depend only on the token's content.
    let lintWarnings: [APNsTokenLintWarning]
    let keySet: KeySet

    init(
        tokenBytes: [UInt8], keyID: String, key: APNsRegisteredKey, issuedAt: Double, token: DecodedJWT,
        lintWarnings: [APNsTokenLintWarning], keySet: KeySet
    ) {
        self.tokenBytes = tokenBytes
        self.keyID = keyID
        self.teamID = key.teamID
        self.environments = key.environments
        self.topics = key.topics
        self.issuedAt = issuedAt
        self.token = token
        self.lintWarnings = lintWarnings
        self.keySet = keySet
    }

    /// Whether `bytes` are exactly this record's token.
    @inline(__always)
    func matches(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count == tokenBytes.count else { return false }
        return tokenBytes.withUnsafeBufferPointer { stored in
            guard let a = stored.baseAddress, let b = bytes.baseAddress else { return stored.isEmpty }
            return memcmpBytes(a, b, stored.count)
        }
    }
}

/// Byte equality without Foundation. Not constant time: tokens are bearer credentials the
/// client already sent in the clear to this server, and a hit reveals nothing new.
@inline(__always)
func memcmpBytes(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
    var index = 0
    let raw1 = UnsafeRawPointer(a)
    let raw2 = UnsafeRawPointer(b)
    while index + 8 <= count {
        if raw1.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            != raw2.loadUnaligned(fromByteOffset: index, as: UInt64.self)
        {
            return false
        }
        index += 8
    }
    while index < count {
        if a[index] != b[index] { return false }
        index += 1
    }
    return true
}
