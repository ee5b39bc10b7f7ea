@testable import HTTPTransport
import Testing

/// The event loop's timers: due tasks run in deadline order, cancelled ones never run, and
/// cancelled ones do not pile up (a client cancels a request timeout for every answer).
@Suite struct TimerQueueTests {
    @Test func dueTasksComeOutInDeadlineOrderAndCancelledOnesNever() {
        var queue = TimerQueue()
        let start = ContinuousClock.now
        var fired: [Int] = []
        var handles: [ScheduledTask] = []
        for offset in [5, 1, 4, 2, 3, 6] {
            handles.append(queue.schedule(at: start + .milliseconds(offset)) { fired.append(offset) })
        }
        handles[2].cancel()  // the task at 4 ms
        handles[2].cancel()  // twice is harmless
        #expect(queue.nextDeadline == start + .milliseconds(1))
        for task in queue.takeExpired(now: start + .milliseconds(5)) { task() }
        #expect(fired == [1, 2, 3, 5])
        #expect(queue.nextDeadline == start + .milliseconds(6))
    }

    @Test func cancelledTimersAreDroppedLongBeforeTheirDeadlines() {
        var queue = TimerQueue()
        let far = ContinuousClock.now + .seconds(30)
        var ran = 0
        var live: [ScheduledTask] = []
        // A client with 100 requests in flight, each with a 30 s timeout cancelled on its answer.
        for _ in 0..<100 { live.append(queue.schedule(at: far) { ran += 1 }) }
        for round in 0..<100_000 {
            live[round % 100].cancel()
            live[round % 100] = queue.schedule(at: far + .milliseconds(round)) { ran += 1 }
            #expect(queue.count <= 2 * 100 + 66, "round \(round): \(queue.count) timers kept")
        }
        #expect(queue.nextDeadline != nil)
        var due = queue.takeExpired(now: far + .seconds(1000))
        for task in due { task() }
        #expect(ran == 100)
        due = queue.takeExpired(now: far + .seconds(2000))
        #expect(due.isEmpty && queue.count == 0)
    }
}
