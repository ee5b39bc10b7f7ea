import Foundation
@testable import MockAPNs
import PushTestSupport
import Testing

/// How many records the memory test pushes through the ring.
#if DEBUG
/// Enough to cycle the 10,000-record ring twenty times, at debug speed.
private let memoryRecords = 200_000
#else
private let memoryRecords = 1_000_000
#endif

/// Memory of the push path, asserted with a generous bound. (Throughput belongs to the
/// benchmarks, not to tests.)
@Suite(.serialized) struct CapturePerformanceTests {
    /// VmRSS from /proc/self/status, in KiB.
    private static func residentKiB() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "")
        }
        return nil
    }

    struct MemoryObservation: Sendable {
        var count: Int
        var dropped: Int
        var written: Int?
        var fileDropped: Int?
        var afterWarmUp: Int
        var end: Int
    }

    @Test func manyRecordsThroughATenThousandRingDoNotGrowMemory() async throws {
        // CPU-bound for seconds: on a thread of its own, off the test pool.
        let seen = try await onThread { try Self.recordMany() }
        let total = memoryRecords
        #expect(seen.count == 10_000)
        #expect(seen.dropped == total - 10_000)
        #expect(seen.written == total)
        #expect(seen.fileDropped == 0)
        #expect(seen.end < 1_000_000, "RSS \(seen.end) KiB")
        #expect(seen.end - seen.afterWarmUp < 150_000, "RSS grew from \(seen.afterWarmUp) to \(seen.end) KiB")
    }

    static func recordMany() throws -> MemoryObservation {
        let path = CaptureFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try CaptureStore(capacity: 10_000, filePath: path)
        var record = CaptureFixtures.fullRecord()
        let total = memoryRecords
        let warmUp = 50_000
        var afterWarmUp = 0
        for index in 0..<total {
            // A fresh payload per record, so the ring really holds 10,000 distinct buffers.
            record.payload = Array("{\"aps\":{\"alert\":\"push \(index)\"}}".utf8)
            store.record(record)
            if index + 1 == warmUp { afterWarmUp = residentKiB() ?? 0 }
        }
        store.flush()
        let end = residentKiB() ?? 0
        store.close()
        return MemoryObservation(
            count: store.count, dropped: store.droppedCount, written: store.fileWriter?.writtenRecordCount,
            fileDropped: store.fileWriter?.droppedRecordCount, afterWarmUp: afterWarmUp, end: end)
    }
}
