import Foundation
@testable import APNsCapture
import PushTestSupport
import Testing

/// How many records the memory test pushes through the ring.
#if DEBUG
/// Enough to cycle the 10,000-record ring twenty times, at debug speed.
private let memoryRecords = 200_000
#else
private let memoryRecords = 1_000_000
#endif

/// What bounds the push path's memory: the ring keeps its capacity and drops the rest, and
/// the file writer's queue drains. The resident-memory figure itself is measured on the real
/// process by scripts/bench-mock.sh: in a test run, RSS belongs to every test running at once.
@Suite(.serialized) struct CapturePerformanceTests {
    struct MemoryObservation: Sendable {
        var count: Int
        var dropped: Int
        var written: Int?
        var fileDropped: Int?
    }

    @Test func manyRecordsThroughATenThousandRingKeepOnlyTheRingAndWriteEveryLine() async throws {
        // CPU-bound for seconds: on a thread of its own, off the test pool.
        let seen = try await onThread { try Self.recordMany() }
        let total = memoryRecords
        #expect(seen.count == 10_000)
        #expect(seen.dropped == total - 10_000)
        #expect(seen.written == total)
        #expect(seen.fileDropped == 0)
    }

    static func recordMany() throws -> MemoryObservation {
        let path = CaptureFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try CaptureStore(capacity: 10_000, filePath: path)
        var record = CaptureFixtures.fullRecord()
        let total = memoryRecords
        for index in 0..<total {
            // A fresh payload per record, so the ring really holds 10,000 distinct buffers.
            record.payload = Array("{\"aps\":{\"alert\":\"push \(index)\"}}".utf8)
            store.record(record)
        }
        store.flush()
        store.close()
        return MemoryObservation(
            count: store.count, dropped: store.droppedCount, written: store.fileWriter?.writtenRecordCount,
            fileDropped: store.fileWriter?.droppedRecordCount)
    }
}
