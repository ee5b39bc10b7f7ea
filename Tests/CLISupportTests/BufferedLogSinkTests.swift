import CLISupport
import Foundation
import Testing

/// The batched sink: every line arrives whole and in order, on `flush()` or by itself.
@Suite(.timeLimit(.minutes(1)))
struct BufferedLogSinkTests {
    /// A pipe whose read end does not block.
    private func pipe() -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        _ = Foundation.pipe(&fds)
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        return (fds[0], fds[1])
    }

    private func drain(_ fd: Int32) -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func linesArriveWholeAndInOrderWithoutAFlush() async throws {
        let (readEnd, writeEnd) = pipe()
        defer { close(readEnd); close(writeEnd) }
        let sink = LogSink.buffered(fileDescriptor: writeEnd)
        let logger = Logger(label: "push-gateway", sink: sink)
        for index in 0..<1_000 { logger.log(level: .info, "push sent", fields: [("n", String(index))]) }
        // The flusher writes them (past 16 KB at once, the rest within its interval). Polled
        // with sleeps that free the test pool's thread, and a generous bound.
        var text = "", lineCount = 0
        for _ in 0..<1_000 where lineCount < 1_000 {
            let chunk = drain(readEnd)
            lineCount += chunk.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
            text += chunk
            if lineCount < 1_000 { try await Task.sleep(for: .milliseconds(10)) }
        }
        let lines = text.split(separator: "\n")
        #expect(lines.count == 1_000)
        #expect(lines.enumerated().allSatisfy { $0.element.hasSuffix(" info push-gateway: n=\($0.offset) push sent") })
    }

    @Test func anExplicitFlushWritesAtOnce() {
        let (readEnd, writeEnd) = pipe()
        defer { close(readEnd); close(writeEnd) }
        let sink = LogSink.buffered(fileDescriptor: writeEnd)
        let logger = Logger(label: "tool", sink: sink)
        logger.info("one")
        logger.info("two")
        sink.flush()
        let lines = drain(readEnd).split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.hasSuffix(" info tool: one") == true && lines.last?.hasSuffix(" info tool: two") == true)
    }
}
