import Synchronization
import Testing
@testable import HTTPTransport

/// Output deferred to the end of a loop iteration is written after the rest of that
/// iteration's work, and never left waiting while the loop sleeps.
@Suite(.timeLimit(.minutes(1)))
struct EventLoopDeferredFlushTests {
    final class Log: Sendable {
        private let entries = Mutex<[String]>([])

        func append(_ entry: String) { entries.withLock { $0.append(entry) } }

        /// The entries once there are `count` of them (or after 5 s).
        func waitFor(_ count: Int) async throws -> [String] {
            for _ in 0..<500 where entries.withLock({ $0.count }) < count { try await Task.sleep(for: .milliseconds(10)) }
            return entries.withLock { $0 }
        }
    }

    final class Flusher: DeferredFlushing, @unchecked Sendable {
        // Unchecked: `then` is set before the flusher is handed to its loop.
        let name: String
        let log: Log
        var then: (() -> Void)?

        init(_ name: String, log: Log) {
            self.name = name
            self.log = log
        }

        func flushDeferred() {
            log.append(name)
            then?()
        }
    }

    @Test func aDeferredFlushRunsAfterTheRestOfTheIteration() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let log = Log()
        let first = Flusher("flush a", log: log), second = Flusher("flush b", log: log)
        try loop.execute {
            loop.flushAtEndOfIteration(first)
            log.append("task")
            loop.flushAtEndOfIteration(second)
            log.append("task again")
        }
        #expect(try await log.waitFor(4) == ["task", "task again", "flush a", "flush b"])
    }

    @Test func aFlushQueuedByAFlushRunsBeforeTheLoopWaitsAgain() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let log = Log()
        let later = Flusher("pipelined answer", log: log)
        let first = Flusher("answer", log: log)
        first.then = { loop.flushAtEndOfIteration(later) }
        // Nothing else happens on this loop: a flush left for the next iteration would wait
        // for an event that never comes.
        try loop.execute { loop.flushAtEndOfIteration(first) }
        #expect(try await log.waitFor(2) == ["answer", "pipelined answer"])
    }
}
