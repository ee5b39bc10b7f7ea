@testable import APNsCapture
import Foundation
import Synchronization
import SystemSeam
import Testing

/// Lines queued with an acknowledgement: each hears once, in queue order, whether it is in
/// the file; none is dropped for being behind, and none waits.
@Suite(.timeLimit(.minutes(1)))
struct CaptureFileAcknowledgementTests {
    /// Results in the order the writer thread reported them, by line number.
    final class Results: Sendable {
        let all = Mutex<[(Int, CaptureWriteResult)]>([])
        func acknowledgement(for line: Int) -> CaptureAcknowledgement {
            { result in self.all.withLock { $0.append((line, result)) } }
        }
        var lines: [Int] { all.withLock { $0.map(\.0) } }
        var written: [Int] { all.withLock { $0.filter { $0.1 == .written }.map(\.0) } }
    }

    private func queue(_ writer: CaptureFileWriter, line: Int, _ results: Results) -> CaptureFileWriter.QueuedLine {
        let queued = writer.queueLine(acknowledgement: results.acknowledgement(for: line)) {
            $0.append(contentsOf: Array(#"{"v":1,"line":\#(line)}"#.utf8) + [UInt8(ascii: "\n")])
        }
        writer.settle(queued)
        return queued
    }

    @Test func everyLineIsAcknowledgedWrittenInOrderAndNoneWaitsOrIsDroppedWhenBehind() throws {
        let path = CaptureFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        // A limit every line exceeds: an unacknowledged line would wait, or be dropped.
        let writer = try CaptureFileWriter(path: path, maximumPendingBytes: 1, maximumWait: .seconds(3600))
        let results = Results()
        let backlogged = (1...200).map { queue(writer, line: $0, results).backlogged }
        writer.close()

        #expect(backlogged.allSatisfy { $0 })
        #expect(results.lines == Array(1...200))
        #expect(results.written == Array(1...200))
        #expect(writer.droppedRecordCount == 0 && writer.writtenRecordCount == 200)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.split(separator: "\n").count == 200)
    }

    @Test func aLineQueuedWithRoomIsNotBacklogged() throws {
        let path = CaptureFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try CaptureFileWriter(path: path)
        let results = Results()
        #expect(!queue(writer, line: 1, results).backlogged)
        writer.close()
        #expect(results.written == [1])
    }

    @Test func linesOfAFailedWriteAreAcknowledgedFailedAndTheOnesBeforeItWritten() throws {
        let path = CaptureFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let lineLength = #"{"v":1,"line":1}"#.utf8.count + 1
        let disk = CaptureFilePartialWriteTests.FillingDisk(limit: lineLength + 5)
        // Gathers until closed, so the three lines go out in one batch that the disk cuts in the second.
        let writer = try CaptureFileWriter(path: path, truncating: false, maximumPendingBytes: 1 << 20,
                                           maximumWait: .seconds(30), batchDelay: .seconds(3600),
                                           writing: { disk.write($0, $1, $2) })
        let results = Results()
        for line in 1...3 { _ = queue(writer, line: line, results) }
        writer.close()

        #expect(results.lines == [1, 2, 3])
        #expect(results.written == [1])
        let failures = results.all.withLock { $0.compactMap { if case let .failed(error) = $0.1 { error.code } else { nil } } }
        #expect(failures == [ENOSPC, ENOSPC])
        #expect(writer.droppedRecordCount == 2)
    }

    @Test func anEntryOfSeveralLinesCountsEachAndIsAcknowledgedByItsFirst() throws {
        let path = CaptureFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let lineLength = #"{"v":1,"line":1}"#.utf8.count + 1
        // The disk fills inside the third line: the two-line entry is written, the next is not.
        let disk = CaptureFilePartialWriteTests.FillingDisk(limit: 2 * lineLength + 5)
        let writer = try CaptureFileWriter(path: path, truncating: false, maximumPendingBytes: 1 << 20,
                                           maximumWait: .seconds(30), batchDelay: .seconds(3600),
                                           writing: { disk.write($0, $1, $2) })
        let results = Results()
        let pair = writer.queueLine(lines: 2, acknowledgement: results.acknowledgement(for: 1)) {
            $0.append(contentsOf: Array(#"{"v":1,"line":1}"#.utf8) + [UInt8(ascii: "\n")])
            $0.append(contentsOf: Array(#"{"v":1,"line":2}"#.utf8) + [UInt8(ascii: "\n")])
        }
        writer.settle(pair)
        _ = queue(writer, line: 3, results)
        writer.close()

        #expect(results.lines == [1, 3])
        #expect(results.written == [1])
        #expect(writer.writtenRecordCount == 2 && writer.droppedRecordCount == 1)
    }

    @Test func aFailedSyncFailsTheBatchThoughItsLinesAreInTheFile() throws {
        let path = CaptureFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try CaptureFileWriter(path: path, truncating: false, maximumPendingBytes: 1 << 20,
                                           maximumWait: .seconds(30), batchDelay: .seconds(3600), syncsEachBatch: true,
                                           writing: { SystemSeam.write($0, $1, $2) },
                                           syncing: { _ in errno = EIO; return -1 })
        let results = Results()
        for line in 1...2 { _ = queue(writer, line: line, results) }
        writer.close()

        #expect(results.lines == [1, 2] && results.written.isEmpty)
        #expect(writer.unsyncedRecordCount == 2 && writer.writtenRecordCount == 2)
        #expect(writer.lastError?.operation == "fdatasync" && writer.lastError?.code == EIO)
    }

    @Test func aSyncedBatchIsAcknowledgedWritten() throws {
        let path = CaptureFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let syncs = Mutex(0)
        let writer = try CaptureFileWriter(path: path, truncating: false, maximumPendingBytes: 1 << 20,
                                           maximumWait: .seconds(30), batchDelay: .zero, syncsEachBatch: true,
                                           writing: { SystemSeam.write($0, $1, $2) },
                                           syncing: { fd in syncs.withLock { $0 += 1 }; return fdatasync(fd) })
        let results = Results()
        _ = queue(writer, line: 1, results)
        writer.flush()
        #expect(results.written == [1])
        #expect(syncs.withLock { $0 } >= 1)
        writer.close()
    }

    @Test func aLineQueuedAfterCloseIsAcknowledgedFailedAtOnce() throws {
        let path = CaptureFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try CaptureFileWriter(path: path)
        writer.close()
        let results = Results()
        let queued = queue(writer, line: 1, results)
        #expect(!queued.accepted)
        #expect(results.lines == [1] && results.written.isEmpty)
        #expect(writer.droppedRecordCount == 1)
    }
}
