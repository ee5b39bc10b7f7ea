import Synchronization

/// Open connections per ``ClientSource``, for `HTTPServerConfiguration.maxConnectionsPerSource`.
///
/// The listener's loop admits; the loop a connection lives on releases it when it closes, so
/// the table is shared under a lock held for one dictionary update.
final class SourceConnectionTable: Sendable {
    private let limit: Int
    private let open = Mutex<[ClientSource: Int]>([:])

    init(limit: Int) {
        self.limit = limit
    }

    /// Counts a new connection from `source`; false, counting nothing, when it already has
    /// `limit` open.
    func admit(_ source: ClientSource) -> Bool {
        open.withLock { open in
            let count = open[source, default: 0]
            guard count < limit else { return false }
            open[source] = count + 1
            return true
        }
    }

    /// Forgets one connection that ``admit(_:)`` counted.
    func release(_ source: ClientSource) {
        open.withLock { open in
            guard let count = open[source] else { return }
            open[source] = count > 1 ? count - 1 : nil
        }
    }

    /// Sources with a connection open: what the table holds.
    var sourceCount: Int { open.withLock { $0.count } }
}
