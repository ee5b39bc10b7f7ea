import APNsCore
import Foundation
@testable import APNsCapture
import Testing

/// The ring stores its entries back to back in one circular arena that wraps and grows:
/// what comes back must be exactly the newest `capacity` records, whatever their sizes and
/// however often the arena wrapped, and what a query or a wait handed out must not change
/// when the ring later reuses those bytes.
@Suite struct CaptureRingArenaTests {
    /// A record whose payload is `size` bytes long and says which one it is.
    static func record(_ index: Int, size: Int) -> CaptureRecord {
        var record = CaptureFixtures.fullRecord(apnsID: String(format: "00000000-0000-4000-8000-%012d", index))
        let head = "{\"aps\":{\"alert\":\"push \(index) "
        let tail = "\"}}"
        record.payload = Array((head + String(repeating: "x", count: max(0, size - head.utf8.count - tail.utf8.count)) + tail).utf8)
        return record
    }

    /// Pushes `count` records of sizes cycling through `sizes` and returns what was recorded.
    static func recordMany(_ store: CaptureStore, from start: Int = 0, count: Int, sizes: [Int]) -> [CaptureRecord] {
        (start..<start + count).map { index in
            var record = record(index, size: sizes[index % sizes.count])
            record.sequence = store.record(record)
            return record
        }
    }

    @Test func entriesOfMixedSizesSurviveManyWrapsExactly() {
        let store = CaptureStore(capacity: 7)
        // Sizes that leave a different gap at the arena's end on each lap.
        let recorded = Self.recordMany(store, count: 1_000, sizes: [40, 900, 130, 2_500, 7, 600, 4_000, 64])
        #expect(store.count == 7)
        #expect(store.droppedCount == 993)
        #expect(store.records() == Array(recorded.suffix(7)))
        #expect(store.records(limit: 2) == Array(recorded.suffix(2)))
        #expect(store.records(matching: CaptureFilter(apnsID: recorded[997].outcome.apnsID)) == [recorded[997]])
        #expect(store.records(matching: CaptureFilter(apnsID: recorded[990].outcome.apnsID)).isEmpty)
    }

    @Test func theArenaStopsGrowingOnceItHoldsTheRing() {
        let store = CaptureStore(capacity: 100)
        _ = Self.recordMany(store, count: 300, sizes: [150, 300, 1_200])
        let settled = store.ringArenaSize
        _ = Self.recordMany(store, from: 300, count: 5_000, sizes: [150, 300, 1_200])
        #expect(store.ringArenaSize == settled)
        // 100 entries of these sizes take well under 256 KB; the arena holds them with a
        // margin, not a multiple.
        #expect(settled < 256 << 10)
        #expect(store.count == 100)
    }

    @Test func largerEntriesGrowTheArenaInsteadOfCostingEntries() {
        let store = CaptureStore(capacity: 50)
        _ = Self.recordMany(store, count: 200, sizes: [100])
        let small = store.ringArenaSize
        // Every entry from now on is far larger: the ring must still keep 50 of them.
        let large = Self.recordMany(store, from: 200, count: 120, sizes: [4_000])
        #expect(store.ringArenaSize > small)
        #expect(store.records() == Array(large.suffix(50)))
    }

    @Test func queryResultsStayIntactWhenTheRingReusesTheirBytes() throws {
        let store = CaptureStore(capacity: 5)
        let first = Self.recordMany(store, count: 5, sizes: [300])
        let entries = store.entries(matching: .all, limit: nil)
        _ = Self.recordMany(store, from: 5, count: 50, sizes: [300, 20])
        #expect(try entries.map { try $0.record() } == first)
    }

    @Test func aWaitForMoreThanTheRingHoldsGetsEveryRecordIntact() async {
        let store = CaptureStore(capacity: 3)
        async let result = store.wait(for: .all, count: 40, timeout: .seconds(60))
        // Registered before any record, so every one of the 40 counts.
        while store.pendingWaitCount == 0 { await Task.yield() }
        let recorded = Self.recordMany(store, count: 40, sizes: [200, 1_000, 50])
        let answer = await result
        #expect(answer.isSatisfied)
        #expect(answer.records == recorded)
    }

    @Test func clearingGivesTheArenaBackAndTheRingStartsOver() {
        let store = CaptureStore(capacity: 20)
        _ = Self.recordMany(store, count: 60, sizes: [2_000])
        store.clear()
        #expect(store.count == 0)
        #expect(store.ringArenaSize == 0)
        let after = Self.recordMany(store, from: 60, count: 3, sizes: [100])
        #expect(store.records() == after)
    }

    @Test func aStoreWithoutARingNeverAllocatesOneButWaitersStillSeeRecords() async {
        let store = CaptureStore(capacity: 0)
        async let result = store.wait(for: CaptureFilter(outcome: .accepted), count: 2, timeout: .seconds(60))
        while store.pendingWaitCount == 0 { await Task.yield() }
        let recorded = Self.recordMany(store, count: 2, sizes: [100])
        #expect(await result.records == recorded)
        #expect(store.ringArenaSize == 0 && store.count == 0 && store.droppedCount == 2)
    }

    @Test func aRecordAndItsStoredEntryMatchTheSameFilters() {
        let store = CaptureStore(capacity: 4)
        let rejected = CaptureFixtures.fullRecord(accepted: false, apnsID: "abcdef00-0000-4000-8000-000000000001")
        store.record(rejected)
        let filters = [
            CaptureFilter(reason: .unregistered), CaptureFilter(reason: .unknown("Unregistered")),
            CaptureFilter(reason: .badTopic), CaptureFilter(apnsID: "ABCDEF00-0000-4000-8000-000000000001"),
            CaptureFilter(apnsID: "abcdef00-0000-4000-8000-00000000000"), CaptureFilter(topic: "com.example.ap"),
            CaptureFilter(deviceToken: CaptureFixtures.otherToken), CaptureFilter(outcome: .accepted),
        ]
        for filter in filters {
            #expect(filter.matches(rejected) == (store.count(matching: filter) == 1), "\(filter)")
        }
        #expect(store.count(matching: CaptureFilter(reason: .unregistered)) == 1)
        #expect(store.count(matching: CaptureFilter(apnsID: "ABCDEF00-0000-4000-8000-000000000001")) == 1)
    }
}
