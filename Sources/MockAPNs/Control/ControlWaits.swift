import Foundation
import Synchronization

/// The `/pushes/wait` requests in progress, by connection, so that a client that goes away
/// ends its waits at once instead of leaving them to run to their timeout (up to ten
/// minutes each, every one checked on every push).
final class ControlWaits: Sendable {
    private struct State {
        var nextID: UInt64 = 1
        var tasks: [UInt64: Task<Void, Never>] = [:]
        var byConnection: [UInt64: Set<UInt64>] = [:]
        var connectionByTask: [UInt64: UInt64] = [:]
    }

    private let state = Mutex(State())
    private let stopping = Atomic(false)

    /// Whether the server is stopping: a wait cancelled now answers 503 with what it has,
    /// where one cancelled because its client went away answers nothing.
    var isStopping: Bool { stopping.load(ordering: .acquiring) }

    /// Ends every wait as the server stops, then gives their answers up to `timeout` to be
    /// handed to the transport, so that a client waiting learns why, with what was captured,
    /// instead of having its connection reset.
    ///
    /// Blocks the caller (``MockAPNsServer/stop(gracePeriod:)`` is synchronous), and only
    /// while waits are still answering: with none, it returns at once.
    func stopAll(timeout: Duration) {
        stopping.store(true, ordering: .releasing)
        let tasks = state.withLock { state -> [Task<Void, Never>] in Array(state.tasks.values) }
        guard !tasks.isEmpty else { return }
        for task in tasks { task.cancel() }
        let deadline = ContinuousClock.now + timeout
        while count > 0, ContinuousClock.now < deadline {
            usleep(2_000)
        }
    }

    /// Runs `body` as a task that `cancelAll(connection:)` cancels.
    func start(connection: UInt64, _ body: @escaping @Sendable () async -> Void) {
        state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            // Started under the lock, so its own removal (at its end) cannot come first.
            state.tasks[id] = Task {
                await body()
                self.finished(id)
            }
            state.byConnection[connection, default: []].insert(id)
            state.connectionByTask[id] = connection
        }
    }

    /// Cancels the waits `connection` started; each then answers with what it has.
    func cancelAll(connection: UInt64) {
        let tasks = state.withLock { state -> [Task<Void, Never>] in
            guard let ids = state.byConnection.removeValue(forKey: connection) else { return [] }
            return ids.compactMap { id in
                state.connectionByTask[id] = nil
                return state.tasks.removeValue(forKey: id)
            }
        }
        for task in tasks { task.cancel() }
    }

    /// Waits in progress, for tests.
    var count: Int { state.withLock { $0.tasks.count } }

    private func finished(_ id: UInt64) {
        state.withLock { state in
            state.tasks[id] = nil
            guard let connection = state.connectionByTask.removeValue(forKey: id) else { return }
            state.byConnection[connection]?.remove(id)
            if state.byConnection[connection]?.isEmpty == true { state.byConnection[connection] = nil }
        }
    }
}
