import Foundation
import Glibc
@testable import MockAPNs
import Synchronization
import Testing

/// A disk that fills in the middle of a batch: the lines written before the failure are in
/// the file and counted written, only the rest are counted lost (the whole batch was, so
/// `/metrics` and the exit status overstated the loss).
@Suite struct CaptureFilePartialWriteTests {
    /// `write(2)` that takes `limit` bytes of the first call, fails the next call with
    /// ENOSPC, and writes everything after that.
    final class FillingDisk: Sendable {
        let limit: Int
        private let calls = Mutex(0)
        init(limit: Int) { self.limit = limit }

        func write(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
            let call = calls.withLock { calls in
                calls += 1
                return calls
            }
            switch call {
            case 1: return Glibc.write(fd, bytes, min(count, limit))
            case 2:
                errno = ENOSPC
                return -1
            default: return Glibc.write(fd, bytes, count)
            }
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
        // An idle writer that gathers for ever: the three lines go out in one batch at flush.
        let writer = try CaptureFileWriter(path: path, truncating: false, maximumPendingBytes: 1 << 20,
                                           maximumWait: .seconds(30), batchDelay: .seconds(3600),
                                           writing: { disk.write($0, $1, $2) })
        for record in records.prefix(3) { writer.append(record) }
        writer.flush()
        #expect(writer.writtenRecordCount == 1)
        #expect(writer.droppedRecordCount == 2)
        #expect(writer.lastError?.code == ENOSPC)

        writer.append(records[3])
        writer.close()
        #expect(writer.writtenRecordCount == 2)
        #expect(writer.droppedRecordCount == 2)
        let reader = try CaptureFileReader(path: path)
        #expect(try reader.readAll().map(\.sequence) == [1, 4])
        #expect(reader.warnings.map(\.kind) == [.malformedLine], "the fragment of the second line, ended by a newline")
    }
}
