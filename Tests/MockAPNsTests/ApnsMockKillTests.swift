import Foundation
import HTTPTransport
import MockAPNs
import PushTestSupport
import Synchronization
import Testing

/// `kill -9` at random moments under load never loses a push whose 200 went out: every
/// `apns-id` a client was answered 200 for is in the capture file, across restarts on the
/// same file, and each kill leaves at most one cut line, which readers skip with a warning.
@Suite(.timeLimit(.minutes(5)))
struct ApnsMockKillTests {
    static let kills = 20

    /// The `apns-id`s answered 200, and whether the load should stop.
    final class Load: Sendable {
        let accepted = Mutex<[String]>([])
        let stopping = Atomic(false)
    }

    /// Pushes on `connections` connections with `inFlight` pushes each until the mock dies
    /// (or `load.stopping`), recording every 200.
    static func push(to url: String, connections: Int, inFlight: Int, load: Load) async {
        let token: String
        do { token = try Acceptance.providerToken() } catch { return }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<connections {
                guard let client = try? Acceptance.client(for: url, trust: nil) else { continue }
                group.addTask {
                    await withTaskGroup(of: Void.self) { streams in
                        for _ in 0..<inFlight {
                            streams.addTask {
                                while !load.stopping.load(ordering: .relaxed) {
                                    let apnsID = UUID().uuidString.lowercased()
                                    let push = Acceptance.push(token: token, extra: [("apns-id", apnsID)])
                                    guard let response = try? await client.send(push) else { return }
                                    if response.status == 200 { load.accepted.withLock { $0.append(apnsID) } }
                                }
                            }
                        }
                    }
                    await client.close()
                }
            }
        }
    }

    @Test func noPushAnswered200IsMissingFromTheFileAfterKills() async throws {
        let path = try TestCertificates.temporaryDirectory() + "/capture.jsonl"
        defer { unlink(path) }
        var answered: [String] = []
        var perRun: [Int] = []
        for _ in 0..<Self.kills {
            let mock = try await onThread {
                try ApnsMockCommandTests.RunningMock(arguments: [
                    "--no-tls", "--port", "0", "--sandbox-port", "0", "--control-port", "0", "--channel-sandbox-port", "0", "--channel-port", "0", "--capture", path])
            }
            let url = try #require(mock.urls["production"], "no banner: \(mock.takeLog())")
            let load = Load()
            let pushing = Task { await Self.push(to: url, connections: 4, inFlight: 16, load: load) }
            // A random moment: during the first connections, or well into the load.
            try await Task.sleep(for: .milliseconds(Int.random(in: 20...400)))
            mock.process.signal(SIGKILL)
            _ = try await onThread { mock.process.wait(timeout: 20) }
            load.stopping.store(true, ordering: .relaxed)
            await pushing.value
            let accepted = load.accepted.withLock { $0 }
            perRun.append(accepted.count)
            answered += accepted
        }

        var warnings: [CaptureReadWarning] = []
        let records = try CaptureFileReader(path: path) { warnings.append($0) }.readAll()
        let inFile = Set(records.map { $0.outcome.apnsID.lowercased() })
        let missing = answered.filter { !inFile.contains($0) }.count
        #expect(answered.count > 0, "no push was answered: \(perRun)")
        #expect(missing == 0, "\(missing) of \(answered.count) pushes answered 200 are not in the file (200s per run: \(perRun))")
        // Each kill may cut one line: in the middle after a restart, or at the very end.
        #expect(warnings.allSatisfy { [.truncatedBeforeRestart, .truncatedLastLine].contains($0.kind) }, "\(warnings)")
        #expect(warnings.count <= Self.kills)
        #expect(warnings.filter { $0.kind == .truncatedLastLine }.count <= 1)
    }
}
