import Foundation
@testable import APNsCapture
import PushTestSupport
import Synchronization
import SystemSeam
import Testing

/// When the disk falls behind, the capture file slows the pushes down instead of growing
/// without bound or dropping lines; it drops a line only when the writer has made no room
/// for `maximumWait`.
///
/// The "disk" is a FIFO: the writer thread's `write(2)` blocks once the pipe's buffer is
/// full, until the test reads.
@Suite(.timeLimit(.minutes(1))) struct CaptureFileBackPressureTests {
    private static let line = [UInt8](repeating: UInt8(ascii: "x"), count: 1023) + [UInt8(ascii: "\n")]

    private func fifo(_ name: String = #function) throws -> String {
        let path = CaptureFixtures.temporaryPath(name)
        try #require(mkfifo(path, 0o600) == 0, "mkfifo: \(errno)")
        return path
    }

    /// Reads the FIFO on a thread until `bytes` have come, then returns how many did.
    private func drain(_ path: String, bytes: Int) async throws -> Int {
        try await onThread {
            let fd = open(path, O_RDONLY)
            guard fd >= 0 else { return -1 }
            defer { close(fd) }
            var total = 0
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while total < bytes {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                total += count
            }
            return total
        }
    }

    @Test func appendersWaitForASlowFileInsteadOfDroppingLines() async throws {
        let path = try fifo()
        defer { unlink(path) }
        let writer = try CaptureFileWriter(path: path, maximumPendingBytes: 16 << 10, maximumWait: .seconds(30))
        let appended = Counter()
        let lines = 400  // 400 KB: far past the pipe's 64 KB and the 16 KB allowed to wait in memory
        let appending = Task {
            try await onThread {
                for _ in 0..<lines {
                    writer.appendLine { $0.append(contentsOf: Self.line) }
                    appended.value.add(1, ordering: .relaxed)
                }
            }
        }
        // Nobody reads yet: the appender is held back once the pipe and the pending buffer are full.
        var stalled = -1
        for _ in 0..<50 {
            try await Task.sleep(for: .milliseconds(100))
            let now = appended.value.load(ordering: .relaxed)
            if now == stalled { break }
            stalled = now
        }
        #expect(stalled < lines, "the appender never waited")
        #expect(writer.droppedRecordCount == 0)

        let read = try await drain(path, bytes: lines * Self.line.count)
        try await appending.value
        writer.close()
        #expect(read == lines * Self.line.count)
        #expect(writer.droppedRecordCount == 0)
        #expect(writer.writtenRecordCount == lines)
    }

    @Test func aFileThatMakesNoProgressCostsLinesNotAHang() async throws {
        let path = try fifo()
        defer { unlink(path) }
        let writer = try CaptureFileWriter(path: path, maximumPendingBytes: 16 << 10, maximumWait: .milliseconds(20))
        let lines = 300
        // Every append returns, though nothing ever reads: past the wait, lines are dropped and counted.
        try await onThread {
            for _ in 0..<lines { writer.appendLine { $0.append(contentsOf: Self.line) } }
        }
        let dropped = writer.droppedRecordCount
        #expect(dropped > 0)
        #expect(dropped < lines)

        // Let the blocked writer thread finish, so that `close` returns.
        let read = try await drain(path, bytes: (lines - dropped) * Self.line.count)
        writer.close()
        #expect(read == (lines - dropped) * Self.line.count)
        #expect(writer.writtenRecordCount == lines - dropped)
    }
}

private final class Counter: Sendable {
    let value = Atomic<Int>(0)
}
