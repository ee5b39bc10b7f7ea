@testable import APNsCapture
import PushTestSupport
import Testing

/// `CaptureStore.newest(after:matching:limit:)`, what the dashboard's live stream reads.
@Suite struct CaptureNewestTests {
    /// Newest first, at most `limit`; `matched` counts what is newer and still in the ring,
    /// with a filter and without (where it is computed, not counted).
    @Test func newestFirstWithCountsBeyondTheLimit() {
        let store = CaptureStore(capacity: 4)
        for index in 0..<6 {
            store.record(CaptureFixtures.fullRecord(token: index % 2 == 0 ? CaptureFixtures.token : CaptureFixtures.otherToken))
        }
        let all = store.newest(after: 0, matching: .all, limit: 3)
        #expect(all.entries.map(\.sequence) == [6, 5, 4] && all.matched == 4 && all.latestSequence == 6)
        let recent = store.newest(after: 4, matching: .all, limit: 3)
        #expect(recent.entries.map(\.sequence) == [6, 5] && recent.matched == 2)
        let even = store.newest(after: 2, matching: CaptureFilter(deviceToken: CaptureFixtures.token), limit: 1)
        #expect(even.entries.map(\.sequence) == [5] && even.matched == 2)
        let none = store.newest(after: 6, matching: .all, limit: 3)
        #expect(none.entries.isEmpty && none.matched == 0 && none.latestSequence == 6)
        store.clear()
        let cleared = store.newest(after: 0, matching: .all, limit: 3)
        #expect(cleared.entries.isEmpty && cleared.matched == 0 && cleared.latestSequence == 6)
    }

    /// A wait for what is newer than a sequence number ignores the records before it.
    @Test func aWaitAfterASequenceIgnoresOlderRecords() async {
        let store = CaptureStore()
        store.record(CaptureFixtures.fullRecord())
        var filter = CaptureFilter.all
        filter.afterSequence = 1
        #expect(!filter.matches(store.records()[0]))
        let quick = await store.wait(for: filter, count: 1, timeout: .milliseconds(50))
        #expect(quick.records.isEmpty && !quick.isSatisfied)
        async let waited = store.wait(for: filter, count: 1, timeout: .seconds(30))
        #expect(await pollUntil { store.pendingWaitCount == 1 })
        store.record(CaptureFixtures.fullRecord())
        #expect(await waited.records.map(\.sequence) == [2])
    }
}
