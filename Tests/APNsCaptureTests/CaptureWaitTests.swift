import APNsCore
import Foundation
@testable import APNsCapture
import Testing

@Suite struct CaptureWaitTests {
    /// Records from a plain thread (like an event loop) after a delay.
    private func recordLater(_ store: CaptureStore, _ records: [CaptureRecord], after delay: TimeInterval = 0.05) {
        let thread = Thread {
            Thread.sleep(forTimeInterval: delay)
            for record in records { store.record(record) }
        }
        thread.start()
    }

    @Test func waitReturnsAsSoonAsEnoughRecordsArriveFromAnotherThread() async {
        let store = CaptureStore()
        store.record(CaptureFixtures.fullRecord())  // Already captured: counts.
        recordLater(store, [
            CaptureFixtures.fullRecord(token: CaptureFixtures.otherToken),
            CaptureFixtures.fullRecord(),
        ])
        // Satisfied, not timed out, with a 30 s timeout: it returned when the records came.
        let result = await store.wait(for: CaptureFilter(deviceToken: CaptureFixtures.token), count: 2, timeout: .seconds(30))
        #expect(result.ending == .satisfied)
        #expect(result.records.map(\.sequence) == [1, 3])
        #expect(store.pendingWaitCount == 0)
    }

    @Test func waitIsSatisfiedAtOnceByRecordsAlreadyCaptured() async {
        let store = CaptureStore()
        for _ in 0..<3 { store.record(CaptureFixtures.fullRecord()) }
        let result = await store.wait(count: 2, timeout: .seconds(30))
        #expect(result.isSatisfied && result.records.count == 3)
        store.clear()
        let afterClear = await store.wait(count: 1, timeout: .milliseconds(20))
        #expect(afterClear.ending == .timedOut && afterClear.records.isEmpty)
    }

    @Test func waitTimesOutWithWhatThereIs() async {
        let store = CaptureStore()
        store.record(CaptureFixtures.fullRecord(accepted: false))
        let start = ContinuousClock.now
        let result = await store.wait(for: CaptureFilter(outcome: .rejected), count: 2, timeout: .milliseconds(200))
        let elapsed = ContinuousClock.now - start
        #expect(result.ending == .timedOut)
        #expect(result.records.count == 1)
        #expect(elapsed >= .milliseconds(200))
        #expect(store.pendingWaitCount == 0)
        let zero = await store.wait(count: 5, timeout: .zero)
        #expect(zero.ending == .timedOut && zero.records.count == 1)
    }

    @Test func manyConcurrentWaitersEachGetTheirOwnAnswer() async {
        let store = CaptureStore()
        let waiters = 50
        let results = await withTaskGroup(of: (Int, CaptureWaitResult).self) { group in
            for index in 0..<waiters {
                group.addTask {
                    let filter = index % 2 == 0 ? CaptureFilter(outcome: .accepted) : CaptureFilter(outcome: .rejected)
                    let timeout: Duration = index % 5 == 4 ? .milliseconds(100) : .seconds(30)
                    let count = index % 5 == 4 ? 1_000 : 1 + index % 3
                    return (index, await store.wait(for: filter, count: count, timeout: timeout))
                }
            }
            recordLater(store, (0..<6).map { CaptureFixtures.fullRecord(accepted: $0 % 2 == 0) })
            var results: [Int: CaptureWaitResult] = [:]
            for await (index, result) in group { results[index] = result }
            return results
        }
        for (index, result) in results {
            if index % 5 == 4 {
                #expect(result.ending == .timedOut)
            } else {
                #expect(result.ending == .satisfied)
                #expect(result.records.count >= 1 + index % 3)
                #expect(result.records.allSatisfy { $0.outcome.isAccepted == (index % 2 == 0) })
            }
        }
        #expect(store.pendingWaitCount == 0)
    }

    @Test func cancellingAWaitEndsItAtOnce() async {
        let store = CaptureStore()
        let task = Task { await store.wait(count: 1, timeout: .seconds(60)) }
        try? await Task.sleep(for: .milliseconds(30))
        task.cancel()
        let result = await task.value
        #expect(result.ending == .cancelled, "ended by the cancellation, long before its 60 s timeout")
        #expect(store.pendingWaitCount == 0)

        // Already cancelled before waiting: returns without suspending.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await store.wait(count: 1, timeout: .seconds(60))
        }
        #expect(await early.value.ending == .cancelled)
        #expect(store.pendingWaitCount == 0)
    }

    @Test func racingRecordsTimeoutsAndCancellationNeverLeakOrDoubleResume() async {
        let store = CaptureStore(capacity: 100)
        for round in 0..<200 {
            let task = Task { await store.wait(count: 1, timeout: .microseconds(Int64(round % 7) * 50)) }
            if round % 3 == 0 { task.cancel() }
            if round % 2 == 0 { store.record(CaptureFixtures.fullRecord()) }
            _ = await task.value
            store.clear()
        }
        #expect(store.pendingWaitCount == 0)
    }
}
