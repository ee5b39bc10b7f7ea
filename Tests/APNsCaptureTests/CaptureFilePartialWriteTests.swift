import Foundation
@testable import APNsCapture
import Synchronization
import SystemSeam
import Testing

/// A disk that fills in the middle of a batch: the lines written before the failure are in
/// the file and counted written, only the rest are counted lost (the whole batch was, so
/// `/metrics` and the exit status overstated the loss).
@Suite struct CaptureFilePartialWriteTests {
    /// `write(2)` on a disk with room for `limit` bytes: the write that crosses it is cut
    /// short there, the next one fails with ENOSPC, and the disk then has room again.
    final class FillingDisk: Sendable {
        let limit: Int
        private let state = Mutex((written: 0, failed: false))
        init(limit: Int) { self.limit = limit }

        func write(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
            let allowed = state.withLock { state -> Int? in
                if state.failed { return count }
                let room = limit - state.written
                if room <= 0 {
                    state.failed = true
                    return nil
                }
                state.written += min(count, room)
                return min(count, room)
            }
            guard let allowed else {
                errno = ENOSPC
                return -1
            }
            return SystemSeam.write(fd, bytes, allowed)
        }
    }

    @Test func linesWrittenBeforeAFailureMidBatchAreCountedWrittenAndTheRestLost() throws {
        let path = CaptureFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let records = (1...4).map { sequence -> CaptureRecord in
            var record = CaptureFixtures.fullRecord()
            record.sequence = UInt64(sequence)
            return record
        }
        let firstLine = CaptureRecordEncoder.line(records[0]).count
        let disk = FillingDisk(limit: firstLine + 40)
        // A writer that gathers until flushed: the three lines usually go out in one batch,
        // which the disk cuts short in the second line.
        let writer = try CaptureFileWriter(path: path, truncating: false, maximumPendingBytes: 1 << 20,
                                           maximumWait: .seconds(30), batchDelay: .seconds(3600),
                                           writing: { disk.write($0, $1, $2) })
        for record in records.prefix(3) { writer.append(record) }
        writer.flush()
        writer.append(records[3])
        writer.close()

        // However the writer thread batched the lines, what it counts written is what the
        // file holds whole, and every other line is counted lost.
        let reader = try CaptureFileReader(path: path)
        let inFile = try reader.readAll().map(\.sequence)
        #expect(writer.writtenRecordCount == inFile.count, "the file holds \(inFile)")
        #expect(writer.writtenRecordCount + writer.droppedRecordCount == 4)
        #expect(writer.droppedRecordCount >= 1)
        #expect(inFile.first == 1 && inFile.last == 4, "\(inFile)")
        #expect(writer.lastError?.code == ENOSPC)
    }
}
