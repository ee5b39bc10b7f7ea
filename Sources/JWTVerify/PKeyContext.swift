internal import COpenSSL

/// Owns one `EVP_PKEY_CTX*` that has been initialised for ECDSA-with-SHA-256 signing or
/// verification over a precomputed digest.
///
/// Initialising a context costs a provider fetch; keeping it and calling
/// `EVP_PKEY_verify` repeatedly is what `openssl speed` measures, so contexts are reused
/// through ``PKeyContextPool``.
///
/// `@unchecked Sendable`: a context is used by one thread at a time. It lives either in a
/// pool, behind that pool's mutex, or with the single caller that took it out.
final class PKeyContext: @unchecked Sendable {
    enum Operation: Sendable {
        case sign
        case verify
    }

    let pointer: OpaquePointer

    private init(takingOwnershipOf pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_CTX_free(pointer)
    }

    /// Makes a context for `key`. The context takes its own OpenSSL reference on the key,
    /// so it needs no Swift reference to the key's owner.
    static func make(for key: OpaquePointer, operation: Operation) throws(CryptoError) -> PKeyContext {
        guard let raw = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else {
            throw CryptoError("EVP_PKEY_CTX_new_from_pkey")
        }
        let context = PKeyContext(takingOwnershipOf: raw)
        switch operation {
        case .sign:
            guard EVP_PKEY_sign_init(raw) == 1 else { throw CryptoError("EVP_PKEY_sign_init") }
        case .verify:
            guard EVP_PKEY_verify_init(raw) == 1 else { throw CryptoError("EVP_PKEY_verify_init") }
        }
        // Pinning the digest makes OpenSSL reject any input that is not a SHA-256 digest.
        guard EVP_PKEY_CTX_set_signature_md(raw, EVP_sha256()) == 1 else {
            throw CryptoError("EVP_PKEY_CTX_set_signature_md")
        }
        return context
    }
}
