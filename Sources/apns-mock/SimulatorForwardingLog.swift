import CLISupport
import Foundation
import MockAPNs
import Synchronization

/// Says, at most once a second and only when the counts grew, how many pushes the simulator
/// forwarder failed or dropped and why the newest failed: a line per failure would flood the
/// log when the simulator is not booted and every push fails the same way.
func reportSimulatorForwarding(of forwarder: SimulatorForwarder, to logger: Logger) -> any DispatchSourceTimer {
    let timer = DispatchSource.makeTimerSource(queue: .global())
    let reported = Mutex(SimulatorForwardingCounts())
    timer.schedule(deadline: .now() + 1, repeating: 1)
    timer.setEventHandler {
        let counts = forwarder.counts
        let previous = reported.withLock { last -> SimulatorForwardingCounts in
            defer { last = counts }
            return last
        }
        if counts.failed > previous.failed {
            logger.error("simulator forwarding: \(counts.failed - previous.failed) push(es) failed in the last second "
                + "(\(counts.failed) so far); newest: \(counts.lastFailure ?? "unknown")")
        }
        if counts.dropped > previous.dropped {
            logger.warning("simulator forwarding: \(counts.dropped - previous.dropped) push(es) dropped in the last second, "
                + "the queue of \(forwarder.settings.queueCapacity) being full (\(counts.dropped) so far)")
        }
    }
    timer.resume()
    return timer
}
