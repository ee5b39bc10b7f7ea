import Foundation
import Synchronization

/// A fixed set of event loops, one per core by default.
///
/// A group is cheap to share: servers and clients take one and spread their
/// connections over its loops. Call `shutdown()` when nothing uses it any more.
public final class EventLoopGroup: Sendable {
    /// The loops, each with its own thread.
    public let loops: [EventLoop]
    private let nextIndex = Atomic<Int>(0)

    /// Starts `threads` loops.
    ///
    /// - Parameter threads: the number of loops; defaults to the number of cores.
    /// - Throws: `TransportError.system` when a loop cannot open its selector, and
    ///   `TransportError.unknownEventLoopBackend` when `APNS_MOCK_EVENT_LOOP` names no backend.
    public init(threads: Int = ProcessInfo.processInfo.activeProcessorCount) throws(TransportError) {
        var loops: [EventLoop] = []
        for index in 0..<max(1, threads) {
            let loop = try EventLoop(name: "http-loop-\(index)")
            loop.start()
            loops.append(loop)
        }
        self.loops = loops
    }

    /// The next loop in round-robin order.
    public func next() -> EventLoop {
        let index = nextIndex.wrappingAdd(1, ordering: .relaxed).oldValue
        return loops[index % loops.count]
    }

    /// The loop whose thread the caller runs on, if it is one of this group's.
    public var currentLoop: EventLoop? { loops.first { $0.inEventLoop } }

    /// Stops every loop and waits for their threads to finish. Calling it again does nothing more.
    public func shutdown() {
        for loop in loops { loop.stop() }
    }
}
