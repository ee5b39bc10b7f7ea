import Dispatch
import Synchronization

/// True for the first caller only: a second signal must not resume the wait twice.
final class OnceFlag: Sendable {
    private let taken = Atomic<Bool>(false)
    func claim() -> Bool { !taken.exchange(true, ordering: .acquiringAndReleasing) }
}

/// Signal sources live as long as the process; a released source stops delivering.
nonisolated(unsafe) var signalSources: [DispatchSourceSignal] = []
