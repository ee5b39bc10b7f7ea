internal import COpenSSL
import OpenSSLSupport

/// Owns one explicitly fetched `EVP_MD*`.
///
/// Fetching takes locks in the provider store; doing it once, instead of inside every
/// one-shot `SHA256()` call, is most of what makes hashing a token cheap.
///
/// `@unchecked Sendable`: a fetched algorithm is immutable and OpenSSL allows sharing it.
final class FetchedDigest: @unchecked Sendable {
    let pointer: OpaquePointer

    private init(takingOwnershipOf pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_MD_free(pointer)
    }

    /// Fetches an algorithm by name, or returns `nil` (queue emptied) if it is unavailable.
    static func fetch(_ name: String) -> FetchedDigest? {
        guard let raw = EVP_MD_fetch(nil, name, nil) else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        return FetchedDigest(takingOwnershipOf: raw)
    }
}
