import Foundation
@testable import APNsCapture
import PushTestSupport
import Synchronization
import Testing

@Suite struct CaptureFileTests {
    private func appendRaw(_ text: String, to path: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
    }

    @Test func recordsAppearInTheFileAfterFlush() throws {
        let path = CaptureFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try CaptureStore(filePath: path)
        defer { store.close() }
        for round in 1...3 {
            for _ in 0..<100 { store.record(CaptureFixtures.fullRecord()) }
            store.flush()
            let records = try CaptureFileReader(path: path).readAll()
            #expect(records.count == 100 * round)
            #expect(records.map(\.sequence) == Array(1...UInt64(100 * round)))
        }
        #expect(store.fileWriter?.writtenRecordCount == 300)
        #expect(store.fileWriter?.lastError == nil)
    }

    /// Durations too long for Dispatch's nanoseconds mean "no deadline", not an arithmetic
    /// overflow in the initializer; flush and close still end the writer's wait for more.
    @Test func durationsTooLongForDispatchDoNotTrapAndFlushStillWrites() throws {
        let path = CaptureFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try CaptureFileWriter(path: path, maximumWait: .seconds(Int64.max), batchDelay: .seconds(Int64.max))
        for sequence in 1...3 {
            var record = CaptureFixtures.fullRecord()
            record.sequence = UInt64(sequence)
            writer.append(record)
        }
        writer.flush()
        #expect(try CaptureFileReader(path: path).readAll().map(\.sequence) == [1, 2, 3])
        writer.close()
        #expect(writer.writtenRecordCount == 3)
    }

    @Test func aTruncatedLastLineIsSkippedWithOneWarning() throws {
        let path = CaptureFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try CaptureFileWriter(path: path)
        for sequence in 1...5 {
            var record = CaptureFixtures.fullRecord()
            record.sequence = UInt64(sequence)
            writer.append(record)
        }
        writer.close()
        var sixth = CaptureFixtures.fullRecord()
        sixth.sequence = 6
        let partial = CaptureRecordEncoder.line(sixth)
        try appendRaw(String(decoding: partial.prefix(partial.count / 2), as: UTF8.self), to: path)

        let reader = try CaptureFileReader(path: path)
        let records = try reader.readAll()
        #expect(records.map(\.sequence) == [1, 2, 3, 4, 5])
        #expect(reader.warnings.count == 1)
        #expect(reader.warnings.first?.kind == .truncatedLastLine)
        #expect(reader.warnings.first?.lineNumber == 6)
    }

    @Test func reopeningAfterACrashEndsThePartialLineFirst() throws {
        let path = CaptureFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var first = CaptureFixtures.fullRecord()
        first.sequence = 1
        try Data(CaptureRecordEncoder.line(first)).write(to: URL(fileURLWithPath: path))
        try appendRaw(#"{"v":2,"seq":2,"kind":"push","time":"20"#, to: path)

        let writer = try CaptureFileWriter(path: path)
        var third = CaptureFixtures.fullRecord()
        third.sequence = 3
        writer.append(third)
        writer.close()

        let reader = try CaptureFileReader(path: path)
        #expect(try reader.readAll().map(\.sequence) == [1, 3])
        #expect(reader.warnings.map(\.kind) == [.malformedLine])
        #expect(reader.warnings.first?.lineNumber == 2)
    }

    @Test func recordsOfAnotherVersionOrKindAreSkippedAsSuchAndDamageAsMalformed() throws {
        let path = CaptureFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var first = CaptureFixtures.fullRecord()
        first.sequence = 1
        let line = String(decoding: CaptureRecordEncoder.line(first), as: UTF8.self)
        let future = line.replacingOccurrences(of: #"{"v":2,"#, with: #"{"v":3,"#)
        let otherKind = line.replacingOccurrences(of: #""kind":"push""#, with: #""kind":"snapshot""#)
        try Data((line + future + "garbage\n" + otherKind + line).utf8).write(to: URL(fileURLWithPath: path))

        let reader = try CaptureFileReader(path: path)
        #expect(try reader.readAll().count == 2)
        #expect(reader.warnings.map(\.kind) == [.unsupportedVersion, .malformedLine, .unsupportedKind])
        #expect(reader.warnings.map(\.lineNumber) == [2, 3, 4])
    }

    /// A file the mock wrote before version 2 reads into the same records as the lines the
    /// encoder writes now for the same pushes.
    @Test func aVersion1FileReadsIntoTheSameRecordsAsItsVersion2Lines() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/pushes-v1.jsonl").path
        let version1 = try CaptureFileReader(path: fixture)
        let records = try version1.readAll()
        #expect(records.count == 6 && version1.warningCount == 0)
        let path = CaptureFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try CaptureFileWriter(path: path)
        for record in records { writer.append(record) }
        writer.close()
        let version2 = try CaptureFileReader(path: path)
        #expect(try version2.readAll() == records)
        #expect(version2.warningCount == 0)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!text.contains("raw_device_token") && !text.contains(#""base64":false"#))
        #expect(text.split(separator: "\n").allSatisfy { $0.hasPrefix(#"{"v":2,"seq":"#) && $0.contains(#""kind":"push""#) })
        // The exact bytes of every body survive: compact JSON as `parsed` alone, the rest beside it.
        #expect(records.map(\.payload.count) == [97, 90, 22, 15, 5, 44])
        #expect(records[1].rawDeviceToken == String(repeating: "AB", count: 32))
        #expect(records[2].parsedPayload == ["aps": ["alert": "hi"]] && records[4].parsedPayload == nil)
    }

    /// A file of garbage must not grow memory with a warning per line: only the first few
    /// are kept, the rest counted.
    @Test func keptWarningsAreBounded() throws {
        let path = CaptureFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(String(repeating: "x\n", count: 5_000).utf8).write(to: URL(fileURLWithPath: path))
        let reader = try CaptureFileReader(path: path)
        #expect(try reader.readAll().isEmpty)
        #expect(reader.warnings.count == 100)
        #expect(reader.warnings.last?.lineNumber == 100)
    }

    /// Each skipped line is handed over as it is skipped, not when a record next turns up
    /// (which in endless garbage is never), and all are counted.
    @Test func skippedLinesAreReportedAsTheyAreSkipped() throws {
        let path = CaptureFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(String(repeating: "x\n", count: 5_000).utf8).write(to: URL(fileURLWithPath: path))
        var seen: [Int] = []
        let reader = try CaptureFileReader(path: path) { seen.append($0.lineNumber) }
        #expect(try reader.next() == nil)
        #expect(seen == Array(1...5_000))
        #expect(reader.warningCount == 5_000)
        #expect(reader.lineNumber == 5_000)
    }

    /// The format is one record per line: an empty line (or a lone CR) between records is a
    /// line that is not a record, and so is `"seq":0` (seq is 1 or more). The newline that
    /// ends the last line starts no line of its own.
    @Test func emptyLinesAndSequenceZeroAreMalformed() throws {
        let path = CaptureFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var first = CaptureFixtures.fullRecord()
        first.sequence = 1
        let line = String(decoding: CaptureRecordEncoder.line(first), as: UTF8.self)
        let zero = line.replacingOccurrences(of: #""seq":1,"#, with: #""seq":0,"#)
        #expect(zero != line)
        try Data((line + "\n" + "\r\n" + zero + line).utf8).write(to: URL(fileURLWithPath: path))

        let reader = try CaptureFileReader(path: path)
        #expect(try reader.readAll().count == 2)
        #expect(reader.warnings.map(\.kind) == [.malformedLine, .malformedLine, .malformedLine])
        #expect(reader.warnings.map(\.lineNumber) == [2, 3, 4])
        #expect(reader.warnings.first?.message == "an empty line; the format holds one record per line", "\(reader.warnings)")
        #expect(reader.warnings.last?.message == #""seq" must be 1 or more, found 0"#, "\(reader.warnings)")
    }

    @Test func readingHandlesLinesSpanningReadsAndOverLongLines() throws {
        let path = CaptureFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try CaptureFileWriter(path: path, truncating: true)
        let big = Array(String(repeating: "x", count: 150_000).utf8)
        for sequence in 1...4 {
            var record = CaptureFixtures.fullRecord()
            record.sequence = UInt64(sequence)
            record.payload = sequence == 2 ? big : record.payload
            writer.append(record)
        }
        writer.close()
        let small = CaptureFixtures.fullRecord().payload.count
        #expect(try CaptureFileReader(path: path).readAll().map(\.payload.count) == [small, 150_000, small, small])
        let limited = try CaptureFileReader(path: path, maximumLineLength: 100_000)
        #expect(try limited.readAll().map(\.sequence) == [1, 3, 4])
        #expect(limited.warnings.map(\.kind) == [.lineTooLong])
    }

    @Test func missingFilesThrowWithTheirPath() {
        do {
            _ = try CaptureFileReader(path: "/nonexistent/capture.jsonl")
            Issue.record("opened a missing file")
        } catch {
            #expect(error.operation == "open" && error.code == ENOENT)
            #expect(error.description.contains("/nonexistent/capture.jsonl"))
        }
    }

    @Test func aFollowerSeesRecordsAsTheyAreWritten() async throws {
        let path = CaptureFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try CaptureStore(filePath: path)
        defer { store.close() }
        store.record(CaptureFixtures.fullRecord())
        store.flush()
        let follower = CaptureFileFollower(path: path, pollInterval: .milliseconds(10))
        var iterator = follower.makeAsyncIterator()
        #expect(try await iterator.next()?.sequence == 1)
        // A half-written line is held back until its newline arrives.
        var second = CaptureFixtures.fullRecord()
        second.sequence = 2
        let line = CaptureRecordEncoder.line(second)
        try appendRaw(String(decoding: line.prefix(40), as: UTF8.self), to: path)
        Task {
            try await Task.sleep(for: .milliseconds(50))
            try appendRaw(String(decoding: line.dropFirst(40), as: UTF8.self), to: path)
        }
        #expect(try await iterator.next()?.sequence == 2)
    }

    @Test func aFollowerThatStopsReportsTheLineItHeldBackAsTruncated() async throws {
        let path = CaptureFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var first = CaptureFixtures.fullRecord()
        first.sequence = 1
        var second = CaptureFixtures.fullRecord()
        second.sequence = 2
        try Data(CaptureRecordEncoder.line(first) + CaptureRecordEncoder.line(second).prefix(40)).write(to: URL(fileURLWithPath: path))
        let warnings = WarningLog()
        let follower = CaptureFileFollower(path: path, pollInterval: .milliseconds(10)) { warning in warnings.append(warning) }
        let following = Task {
            var sequences: [UInt64] = []
            for try await record in follower { sequences.append(record.sequence) }
            return sequences
        }
        try await Task.sleep(for: .milliseconds(200))
        #expect(warnings.kinds.isEmpty, "a line still being written is held back, not reported")
        following.cancel()
        #expect(try await following.value == [1])
        #expect(warnings.kinds == [.truncatedLastLine])
    }
}

extension CaptureFileTests {
    /// Cancelled just after a record was returned, with the next line's start read with it:
    /// that partial line is still the one held back, and is reported (it was lost unreported
    /// when the cancellation came before the follower scanned on).
    @Test func aFollowerCancelledRightAfterARecordStillReportsTheHeldBackLine() async throws {
        let path = CaptureFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var first = CaptureFixtures.fullRecord()
        first.sequence = 1
        try Data(CaptureRecordEncoder.line(first) + CaptureRecordEncoder.line(first).prefix(40)).write(to: URL(fileURLWithPath: path))
        let warnings = WarningLog()
        let follower = CaptureFileFollower(path: path, pollInterval: .milliseconds(10)) { warning in warnings.append(warning) }
        let (firstRecord, afterCancel) = try await Task {
            var iterator = follower.makeAsyncIterator()
            let record = try await iterator.next()
            withUnsafeCurrentTask { $0?.cancel() }
            return (record?.sequence, try await iterator.next()?.sequence)
        }.value
        #expect(firstRecord == 1)
        #expect(afterCancel == nil)
        #expect(warnings.kinds == [.truncatedLastLine])
    }
}

/// A file cut short or replaced under a follower, as `: > pushes.jsonl` between test runs
/// and log rotation do: the follower starts over, as `tail -F` does.
extension CaptureFileTests {
    private static func lines(_ sequences: [UInt64]) -> [UInt8] {
        sequences.flatMap { sequence in
            var record = CaptureFixtures.fullRecord()
            record.sequence = sequence
            return CaptureRecordEncoder.line(record)
        }
    }

    /// Follows `path` in a task of its own, logging what it reports.
    private static func follow(_ path: String, into log: FollowLog) -> Task<Void, any Error> {
        let follower = CaptureFileFollower(
            path: path, pollInterval: .milliseconds(10), onWarning: { log.warn($0) }, onRestart: { log.restart($0) })
        return Task {
            for try await record in follower { log.record(record.sequence) }
        }
    }

    @Test func aFollowerStartsOverWhenItsFileIsTruncated() async throws {
        let path = CaptureFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(Self.lines([1, 2, 3])).write(to: URL(fileURLWithPath: path))
        let log = FollowLog()
        let following = Self.follow(path, into: log)
        defer { following.cancel() }
        #expect(await pollUntil { log.sequences == [1, 2, 3] }, "\(log.sequences)")

        // Emptied and written anew, shorter than what was read: read from the start.
        #expect(truncate(path, 0) == 0)
        try appendRaw(String(decoding: Self.lines([10, 11]), as: UTF8.self), to: path)
        #expect(await pollUntil { log.sequences == [1, 2, 3, 10, 11] }, "\(log.sequences)")
        // Longer than the old offset now: read on from the new lines' end, not mid-line.
        try appendRaw(String(decoding: Self.lines([12, 13]), as: UTF8.self), to: path)
        #expect(await pollUntil { log.sequences == [1, 2, 3, 10, 11, 12, 13] }, "\(log.sequences)")
        #expect(log.restarts.map(\.kind) == [.truncated], "\(log.restarts)")
        #expect(log.restarts.first?.message.contains("shorter than the") == true)
        #expect(log.warnings.isEmpty, "no line was damaged: \(log.warnings)")
    }

    @Test func aFollowerMovesToTheNewFileWhenItsPathIsReplaced() async throws {
        let path = CaptureFixtures.temporaryPath()
        let rotated = path + ".1"
        defer {
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: rotated)
        }
        try Data(Self.lines([1, 2])).write(to: URL(fileURLWithPath: path))
        let log = FollowLog()
        let following = Self.follow(path, into: log)
        defer { following.cancel() }
        #expect(await pollUntil { log.sequences == [1, 2] }, "\(log.sequences)")

        // Written to the old file just before it is moved away: still read, and its partial
        // last line is reported as the old file's truncated last line.
        try appendRaw(String(decoding: Self.lines([3]) + Self.lines([4]).prefix(40), as: UTF8.self), to: path)
        #expect(rename(path, rotated) == 0)
        try Data(Self.lines([10, 11])).write(to: URL(fileURLWithPath: path))
        #expect(await pollUntil { log.sequences == [1, 2, 3, 10, 11] }, "\(log.sequences)")
        #expect(log.restarts.map(\.kind) == [.replaced], "\(log.restarts)")
        #expect(log.warnings.map(\.kind) == [.truncatedLastLine], "\(log.warnings)")
        // The new file is the one followed from now on.
        try appendRaw(String(decoding: Self.lines([12]), as: UTF8.self), to: path)
        #expect(await pollUntil { log.sequences == [1, 2, 3, 10, 11, 12] }, "\(log.sequences)")
    }
}

/// What a follower reported, from whichever thread it ran on.
private final class FollowLog: Sendable {
    private let state = Mutex<(sequences: [UInt64], warnings: [CaptureReadWarning], restarts: [CaptureFollowRestart])>(([], [], []))
    func record(_ sequence: UInt64) { state.withLock { $0.sequences.append(sequence) } }
    func warn(_ warning: CaptureReadWarning) { state.withLock { $0.warnings.append(warning) } }
    func restart(_ restart: CaptureFollowRestart) { state.withLock { $0.restarts.append(restart) } }
    var sequences: [UInt64] { state.withLock { $0.sequences } }
    var warnings: [CaptureReadWarning] { state.withLock { $0.warnings } }
    var restarts: [CaptureFollowRestart] { state.withLock { $0.restarts } }
}

/// The warnings a follower reported, from whichever thread it ran on.
private final class WarningLog: Sendable {
    private let warnings = Mutex<[CaptureReadWarning]>([])
    func append(_ warning: CaptureReadWarning) { warnings.withLock { $0.append(warning) } }
    var kinds: [CaptureReadWarning.Kind] { warnings.withLock { $0.map(\.kind) } }
}
