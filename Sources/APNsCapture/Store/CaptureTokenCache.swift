import Synchronization

/// The `token` objects of the last few provider tokens as the encoder wrote them: a client
/// sends the same token for many pushes (one per connection, renewed at most every 20
/// minutes), and encoding its header and claims again was a seventh of a line's cost.
///
/// An entry is used only for a token equal to the one it was written for, so a hit writes
/// the same JSON as encoding afresh would (members of `header` and `claims` come in no
/// particular order, as the format says). Comparing is cheap for the pushes that matter: the
/// token verifier hands out the header and claims of a token it has seen as the same
/// dictionaries, which compare by identity first.
final class CaptureTokenCache: Sendable {
    /// How many tokens it keeps; the oldest goes first.
    static let capacity = 8

    private struct Entry: Sendable {
        let token: CaptureTokenInfo
        let bytes: [UInt8]
    }

    private let entries = Mutex<[Entry]>([])

    /// The encoded `token` object for `token`, if it is one of the last few written.
    func encoded(_ token: CaptureTokenInfo) -> [UInt8]? {
        guard token.fingerprint != nil else { return nil }
        return entries.withLock { entries in
            // Compared in place (a loop over the entries copied each), the fingerprint first:
            // it tells tokens apart before any dictionary is compared.
            for index in entries.indices where entries[index].token.fingerprint == token.fingerprint
                && entries[index].token.header == token.header && entries[index].token.claims == token.claims {
                return entries[index].bytes
            }
            return nil
        }
    }

    /// Keeps `bytes` as the encoding of `token`.
    func insert(_ token: CaptureTokenInfo, bytes: [UInt8]) {
        guard token.fingerprint != nil else { return }
        entries.withLock { entries in
            if entries.count == Self.capacity { entries.removeFirst() }
            entries.append(Entry(token: token, bytes: bytes))
        }
    }
}
