import APNsCore
import Foundation
import Synchronization
import SystemSeam
import HTTPTransport
import MockAPNs
import PushTestSupport
import Testing

/// With a capture file, a push is answered only once its line is in the file, a push whose
/// line could not be written is answered 500, and a connection stops reading while the file
/// is behind (docs/capture-format.md, "Durability").
@Suite(.timeLimit(.minutes(3)))
struct CaptureDurableAnswerTests {
    /// A FIFO as the capture file, filled up so that the mock's next write blocks until the
    /// test reads: a disk that takes its time, with no seam in the mock.
    final class StalledFile {
        let path: String
        let fd: Int32

        init() throws {
            path = try TestCertificates.temporaryDirectory() + "/capture.fifo"
            guard mkfifo(path, 0o600) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
            // Read-write, so that neither open waits for the other end and the mock's writes never see EPIPE.
            fd = open(path, O_RDWR | O_NONBLOCK)
            guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
            let filler = [UInt8](repeating: UInt8(ascii: "\n"), count: 4096)
            while filler.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
        }

        /// Reads what the pipe holds now; the filler is newlines only, which no capture line has.
        func drain() -> String {
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                bytes += chunk[..<count]
            }
            return String(decoding: bytes, as: UTF8.self)
        }

        /// Reads until `lines` capture lines have come through (the writer may still be
        /// writing), or ``pollUntil(timeout:_:)``'s bound passes.
        func drain(lines: Int) async throws -> [String] {
            var text = ""
            _ = await pollUntil {
                text += drain()
                return text.split(separator: "\n").count >= lines
            }
            return text.split(separator: "\n").map(String.init)
        }

        deinit {
            close(fd)
            unlink(path)
        }
    }

    final class AnsweredFlag: Sendable {
        let value = Atomic(false)
    }

    @Test func aPushIsAnsweredOnlyOnceItsLineIsInTheFile() async throws {
        let file = try StalledFile()
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Acceptance.certs) {
            $0.server.captureFilePath = file.path
        }
        let client = try Acceptance.client(for: mock.productionURL, trust: mock.trustRootsPath)
        let apnsID = "0f3c9a7e-51d2-4b0e-8000-0000000000d1"
        let finished = AnsweredFlag()
        let answered = Task {
            let response = try await client.send(Acceptance.push(token: try Acceptance.providerToken(), extra: [("apns-id", apnsID)]))
            finished.value.store(true, ordering: .releasing)
            return response
        }

        // The mock has decided (the ring has it) but must not answer while the line waits.
        #expect(await mock.capture.wait(for: CaptureFilter(apnsID: apnsID), count: 1, timeout: .seconds(20)).isSatisfied)
        try await Task.sleep(for: .milliseconds(300))
        let early = finished.value.load(ordering: .acquiring)
        #expect(!early, "answered before its line was written")

        let lines = try await file.drain(lines: 1)
        let response = try await answered.value
        #expect(response.status == 200)
        #expect(lines.count == 1 && lines[0].contains(apnsID))
        await client.close()
        mock.stop()
    }

    @Test func aConnectionStopsReadingWhileTheFileIsBehind() async throws {
        let file = try StalledFile()
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Acceptance.certs) {
            $0.server.captureFilePath = file.path
            $0.server.captureMaximumPendingBytes = 1  // Every line puts the file behind.
        }
        let client = try Acceptance.client(for: mock.productionURL, trust: mock.trustRootsPath)
        let token = try Acceptance.providerToken()
        let first = Task { try await client.send(Acceptance.push(token: token)) }
        #expect(await mock.capture.wait(for: .all, count: 1, timeout: .seconds(20)).isSatisfied)
        // The token was valid, so the stream limit allows a second push on the connection.
        try await Task.sleep(for: .milliseconds(200))
        let second = Task { try await client.send(Acceptance.push(token: token)) }
        try await Task.sleep(for: .milliseconds(300))
        #expect(mock.capture.count == 1, "the second push was read while the file was behind")

        var lines = try await file.drain(lines: 1)
        #expect(try await first.value.status == 200)
        #expect(try await second.value.status == 200)
        if lines.count < 2 { lines += try await file.drain(lines: 2 - lines.count) }
        #expect(lines.count == 2)
        #expect(mock.capture.count == 2)
        await client.close()
        mock.stop()
    }

    @Test func aPushWhoseLineCannotBeWrittenIsAnswered500() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Acceptance.certs) {
            $0.server.captureFilePath = "/dev/full"  // Every write fails with ENOSPC.
        }
        defer { mock.stop() }
        let client = try Acceptance.client(for: mock.productionURL, trust: mock.trustRootsPath)
        let response = try await client.send(Acceptance.push(token: try Acceptance.providerToken()))
        await client.close()

        #expect(response.status == 500)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"reason":"InternalServerError"}"#)
        #expect(response.headers["apns-id"].map(APNsIDGenerator.isCanonicalUUID) == true)
        let writer = try #require(mock.capture.fileWriter)
        #expect(writer.droppedRecordCount == 1 && writer.writtenRecordCount == 0)
        #expect(writer.lastError?.code == ENOSPC)
    }

    /// A mock restarted on a file a crash cut mid-line starts on a fresh line, and readers
    /// skip the fragment with a warning, not as damage.
    @Test func aRestartOnATruncatedFileStartsAFreshLineAndReadersWarn() async throws {
        let path = try TestCertificates.temporaryDirectory() + "/capture.jsonl"
        defer { unlink(path) }
        for run in 1...2 {
            let mock = try MockAPNsServer.startForTesting(certsDirectory: Acceptance.certs) { $0.server.captureFilePath = path }
            let client = try Acceptance.client(for: mock.productionURL, trust: mock.trustRootsPath)
            #expect(try await client.send(Acceptance.push(token: try Acceptance.providerToken())).status == 200)
            await client.close()
            mock.stop()
            if run == 1 {
                // What kill -9 mid-write leaves: the start of a line, no newline.
                let handle = try #require(FileHandle(forWritingAtPath: path))
                try handle.seekToEnd()
                try handle.write(contentsOf: Data(#"{"v":2,"seq":2,"kind":"push","time":"2026-"#.utf8))
                try handle.close()
            }
        }

        var warnings: [CaptureReadWarning] = []
        let records = try CaptureFileReader(path: path) { warnings.append($0) }.readAll()
        #expect(records.map(\.sequence) == [1, 1])
        #expect(warnings.map(\.kind) == [.truncatedBeforeRestart])
        #expect(warnings.first?.lineNumber == 2)
    }
}
