import Synchronization

/// A monotonic clock in seconds that moves only when a test says so.
final class ManualClock: Sendable {
    private let now = Mutex<Double>(1_000)
    var seconds: Double { now.withLock { $0 } }
    func advance(by seconds: Double) { now.withLock { $0 += seconds } }
}
