import APNsCore
import Foundation
import StrictJSON
@testable import APNsCapture
import PushTestSupport
import Synchronization
import Testing

@Suite struct CaptureStoreTests {
    @Test func theRingKeepsTheNewestAndCountsWhatItDropped() {
        let store = CaptureStore(capacity: 10)
        for _ in 0..<25 { store.record(CaptureFixtures.fullRecord()) }
        #expect(store.count == 10)
        #expect(store.droppedCount == 15)
        #expect(store.recordedCount == 25)
        #expect(store.records().map(\.sequence) == Array(16...25))
        #expect(store.records(limit: 3).map(\.sequence) == [23, 24, 25])
        store.clear()
        #expect(store.count == 0 && store.droppedCount == 0)
        #expect(store.record(CaptureFixtures.fullRecord()) == 26)
        #expect(CaptureStore().capacity == CaptureStore.defaultCapacity)
    }

    @Test func filtersAndTheirConditions() {
        let store = CaptureStore()
        let base = Date(timeIntervalSince1970: 1_800_000_000)
        store.record(CaptureFixtures.fullRecord(apnsID: "aaaaaaaa-0000-4000-8000-000000000001", receivedAt: base))
        store.record(CaptureFixtures.fullRecord(
            token: CaptureFixtures.otherToken, accepted: false, receivedAt: base + 1))
        store.record(CaptureFixtures.fullRecord(topic: "com.example.other", receivedAt: base + 2))
        store.record(CaptureFixtures.fullRecord(accepted: false, receivedAt: base + 3))

        func sequences(_ filter: CaptureFilter) -> [UInt64] { store.records(matching: filter).map(\.sequence) }
        #expect(sequences(.all) == [1, 2, 3, 4])
        #expect(sequences(CaptureFilter(deviceToken: CaptureFixtures.token)) == [1, 3, 4])
        #expect(sequences(CaptureFilter(topic: "com.example.other")) == [3])
        #expect(sequences(CaptureFilter(outcome: .accepted)) == [1, 3])
        #expect(sequences(CaptureFilter(outcome: .rejected)) == [2, 4])
        #expect(sequences(CaptureFilter(reason: .unregistered)) == [2, 4])
        #expect(sequences(CaptureFilter(reason: .badDeviceToken)) == [])
        #expect(sequences(CaptureFilter(apnsID: "AAAAAAAA-0000-4000-8000-000000000001")) == [1])
        #expect(sequences(CaptureFilter(since: base + 1)) == [2, 3, 4])
        #expect(sequences(CaptureFilter(until: base + 1)) == [1])
        #expect(sequences(CaptureFilter(since: base + 1, until: base + 3)) == [2, 3])
        // Bounds past what microseconds hold (the control API takes any Int64 milliseconds)
        // still order: far future is after every push, far past before.
        let farFuture = Date(timeIntervalSince1970: Double(Int64.max) / 1000), farPast = Date(timeIntervalSince1970: -1e300)
        #expect(sequences(CaptureFilter(since: farFuture)) == [])
        #expect(sequences(CaptureFilter(until: farFuture)) == [1, 2, 3, 4])
        #expect(sequences(CaptureFilter(since: farPast)) == [1, 2, 3, 4])
        #expect(sequences(CaptureFilter(until: farPast)) == [])
        // Conditions are AND-ed.
        #expect(sequences(CaptureFilter(deviceToken: CaptureFixtures.token, outcome: .rejected)) == [4])
        #expect(store.count(matching: CaptureFilter(outcome: .rejected, since: base + 2)) == 1)
        #expect(store.records(matching: CaptureFilter(outcome: .accepted), limit: 1).map(\.sequence) == [3])
    }

    @Test func recordedLinesReachTheFileWithoutAFlush() async throws {
        // The store wakes the idle writer thread after releasing its lock; a lost wake-up
        // would leave these lines in memory until a flush.
        let path = CaptureFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try CaptureStore(capacity: 4, filePath: path)
        for round in 1...3 {
            store.record(CaptureFixtures.fullRecord())
            var lines = 0
            for _ in 0..<3_000 where lines < round {
                try await Task.sleep(for: .milliseconds(10))
                lines = (try? CaptureFileReader(path: path).readAll().count) ?? 0
            }
            #expect(lines == round)
        }
        store.close()
    }

    @Test func aZeroCapacityStoreStillWritesTheFile() throws {
        let path = CaptureFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try CaptureStore(capacity: 0, filePath: path)
        for _ in 0..<3 { store.record(CaptureFixtures.fullRecord()) }
        store.close()
        #expect(store.count == 0 && store.droppedCount == 3)
        #expect(try CaptureFileReader(path: path).readAll().count == 3)
    }

    @Test func severalThreadsRecordingKeepEveryRecordAndTheFileInOrder() async throws {
        let path = CaptureFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try CaptureStore(capacity: 100_000, filePath: path)
        let threads = 4
        let perThread = 5_000
        let template = CaptureFixtures.fullRecord()
        let done = Atomic(0)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            for thread in 0..<threads {
                let worker = Thread {
                    var record = template
                    for index in 0..<perThread {
                        record.connectionID = UInt64(thread)
                        record.outcome.apnsID = "\(thread)-\(index)"
                        store.record(record)
                    }
                    if done.add(1, ordering: .acquiringAndReleasing).newValue == threads { continuation.resume() }
                }
                worker.start()
            }
        }
        store.close()
        let inMemory = store.records()
        #expect(inMemory.count == threads * perThread)
        #expect(Set(inMemory.map(\.sequence)).count == threads * perThread)
        let fromFile = try CaptureFileReader(path: path).readAll()
        #expect(fromFile.map(\.sequence) == Array(1...UInt64(threads * perThread)))
        // Each thread's records keep their order.
        for thread in 0..<threads {
            let ids = fromFile.filter { $0.connectionID == UInt64(thread) }.map(\.outcome.apnsID)
            #expect(ids == (0..<perThread).map { "\(thread)-\($0)" })
        }
    }
}

/// The ring keeps lines and builds records from them on request: what comes back must be
/// exactly what went in.
@Suite struct CaptureStoreLineTests {
    @Test func theRingHandsBackExactlyTheRecordedRecords() {
        let store = CaptureStore(capacity: 8)
        var recorded = [
            CaptureFixtures.fullRecord(accepted: true), CaptureFixtures.fullRecord(accepted: false),
            CaptureFixtures.minimalRecord(
                body: [0xFF, 0x00, 0x7B], outcome: CaptureFixtures.rejected(.payloadEmpty, status: 400, apnsID: "B")),
        ]
        for index in recorded.indices {
            recorded[index].sequence = store.record(recorded[index])
        }
        #expect(store.records() == recorded)
        #expect(store.records(matching: CaptureFilter(outcome: .rejected), limit: 1) == [recorded[2]])
    }

    /// Waits that register on a full ring share one copy of each entry, and the copies go
    /// with the entries the ring drops and with the last wait: each of 200 waits on a full
    /// default ring held a 13 MB copy of its own (2.7 GB), copied under the store's lock.
    @Test func pendingWaitsShareOneCopyOfEachRingEntry() async throws {
        let store = CaptureStore(capacity: 50)
        for _ in 0..<50 { store.record(CaptureFixtures.fullRecord(accepted: true)) }
        let waits = (0..<20).map { _ in Task { await store.wait(count: 1_000, timeout: .seconds(60)) } }
        #expect(await pollUntil { store.pendingWaitCount == 20 })
        #expect(store.sharedCopyCount == 50, "each ring entry copied once for 20 waits")
        store.record(CaptureFixtures.fullRecord(accepted: false))
        #expect(store.sharedCopyCount == 50, "the dropped entry's copy left with it, the new one came in")
        for wait in waits { wait.cancel() }
        for wait in waits {
            let result = await wait.value
            #expect(result.ending == .cancelled && result.records.count == 51)
        }
        #expect(store.pendingWaitCount == 0 && store.sharedCopyCount == 0, "no copies held without a wait")
    }
}
