import HTTPTransport
import Testing

/// A task that prefers an event loop runs its code on that loop's thread, before and after
/// an await that resumes from elsewhere: what lets a handler answer without a thread hop.
@Suite struct EventLoopTaskExecutorTests {
    @Test func aTaskPreferringALoopRunsOnItBeforeAndAfterAnAwait() async throws {
        let group = try EventLoopGroup(threads: 2)
        defer { group.shutdown() }
        let loop = group.loops[0], other = group.loops[1]
        let onLoop = await Task(executorPreference: loop) { () async -> [Bool] in
            let before = loop.inEventLoop
            // Resumed from the other loop's thread, as an upstream answer would be.
            let resumedOnOther = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                try? other.execute { continuation.resume(returning: other.inEventLoop) }
            }
            return [before, resumedOnOther, loop.inEventLoop, !other.inEventLoop]
        }.value
        #expect(onLoop == [true, true, true, true])
    }
}
