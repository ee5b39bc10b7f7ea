internal import COpenSSL

/// Owns one `EVP_MD_CTX*`, reused across SHA-256 computations.
///
/// `@unchecked Sendable`: a context is used by one thread at a time. It lives either in
/// ``SHA256Digest``'s pool, behind its mutex, or with the single caller that took it out.
final class DigestContext: @unchecked Sendable {
    let pointer: OpaquePointer

    private init(takingOwnershipOf pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_MD_CTX_free(pointer)
    }

    static func make() -> DigestContext? {
        EVP_MD_CTX_new().map(DigestContext.init(takingOwnershipOf:))
    }
}
