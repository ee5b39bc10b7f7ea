import HTTPTransport
import Synchronization

/// Wakes four times per interval on an event loop and has the pools PING connections idle
/// that long. A loop timer, not a task, so a busy cooperative pool cannot make it late.
final class APNsIdlePinger: Sendable {
    private let loop: EventLoop
    private let pools: [APNsConnectionPool]
    private let interval: Duration
    private let period: Duration
    private let isStopped = Atomic<Bool>(false)

    init(loop: EventLoop, pools: [APNsConnectionPool], interval: Duration) {
        self.loop = loop
        self.pools = pools
        self.interval = interval
        period = max(interval / 4, .milliseconds(10))
    }

    func start() {
        // Refused once the client's group has stopped: there is nothing left to ping.
        try? loop.scheduleTask(after: period) { [self] in
            guard !isStopped.load(ordering: .acquiring) else { return }
            for pool in pools { pool.pingIdleConnections(idleFor: interval) }
            start()
        }
    }

    /// No more checks; one already scheduled does nothing.
    func stop() {
        isStopped.store(true, ordering: .releasing)
    }
}
