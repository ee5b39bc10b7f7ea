import Foundation
@testable import MockAPNs
import Testing

/// How many records the printed throughput figures use: release builds (where the figures
/// mean something) run longer than the debug builds of `swift test`.
#if DEBUG
private let benchmarkRecords = 20_000
#else
private let benchmarkRecords = 200_000
#endif

/// Throughput and memory of the push path. Timing is printed, not asserted (debug builds
/// and shared CI machines vary); memory is asserted with a generous bound. Release figures:
/// `swift test -c release -Xswiftc -enable-testing --filter CapturePerformance`.
@Suite(.serialized) struct CapturePerformanceTests {
    /// VmRSS from /proc/self/status, in KiB.
    private func residentKiB() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "")
        }
        return nil
    }

    @Test func aMillionRecordsThroughATenThousandRingDoNotGrowMemory() throws {
        let path = CaptureFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try CaptureStore(capacity: 10_000, filePath: path)
        var record = CaptureFixtures.fullRecord()
        let total = 1_000_000
        let warmUp = 50_000
        var afterWarmUp = 0
        let start = ContinuousClock.now
        for index in 0..<total {
            // A fresh payload per record, so the ring really holds 10,000 distinct buffers.
            record.payload = Array("{\"aps\":{\"alert\":\"push \(index)\"}}".utf8)
            store.record(record)
            if index + 1 == warmUp { afterWarmUp = residentKiB() ?? 0 }
        }
        store.flush()
        let elapsed = ContinuousClock.now - start
        let end = residentKiB() ?? 0
        store.close()
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("capture: \(total) records in \(seconds) s = \(Int(Double(total) / seconds)) records/s with file; RSS \(afterWarmUp) KiB after \(warmUp), \(end) KiB after \(total)")
        #expect(store.count == 10_000)
        #expect(store.droppedCount == total - 10_000)
        #expect(store.fileWriter?.writtenRecordCount == total)
        #expect(store.fileWriter?.droppedRecordCount == 0)
        #expect(end < 1_000_000, "RSS \(end) KiB")
        #expect(end - afterWarmUp < 150_000, "RSS grew from \(afterWarmUp) to \(end) KiB")
    }

    @Test func recordThroughputOnOneThread() throws {
        let path = CaptureFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let records = benchmarkRecords
        for (label, store) in [("ring only", CaptureStore()), ("ring + file", try CaptureStore(filePath: path))] {
            let record = CaptureFixtures.fullRecord()
            let start = ContinuousClock.now
            for _ in 0..<records { store.record(record) }
            store.flush()
            let elapsed = ContinuousClock.now - start
            store.close()
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            print("capture: \(label): \(Int(Double(records) / seconds)) records/s")
            #expect(store.recordedCount == UInt64(records))
        }
    }

    @Test func encodingThroughput() {
        let record = CaptureFixtures.fullRecord()
        var total = 0
        let start = ContinuousClock.now
        for _ in 0..<benchmarkRecords { total &+= CaptureRecordEncoder.line(record).count }
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("capture: encode only: \(Int(Double(benchmarkRecords) / seconds)) lines/s, \(total / benchmarkRecords) bytes/line")
        #expect(total > 0)
    }
}
