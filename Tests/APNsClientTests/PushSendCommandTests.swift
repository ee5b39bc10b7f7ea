import APNsCore
import Foundation
import MockAPNs
import PushTestSupport
import Testing

/// The push-send executable against the mock: output and exit codes 0, 1 and 2.
@Suite(.timeLimit(.minutes(3)))
struct PushSendCommandTests {
    static let executable = URL(fileURLWithPath: ClientFixtures.certs).deletingLastPathComponent()
        .appendingPathComponent(".build/debug/push-send").path
    static let authKey = "ABC123DEFG:TEAM000001:\(ClientFixtures.certs)/AuthKey_ABC123DEFG.p8"
    static let unregistered = String(repeating: "a1", count: 32)

    static func run(_ arguments: [String], input: [UInt8]? = nil) async throws -> ChildResult {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw ChildProcessError(description: "\(executable) is missing: run `swift build --build-tests` first")
        }
        return try await onThread { try ChildProcess.run(executable, arguments, input: input) }
    }

    static func mockArguments(_ mock: MockAPNsServer) -> [String] {
        ["--sandbox", "--url", mock.sandboxURL, "--ca", mock.trustRootsPath ?? "", "--topic", ClientFixtures.topic]
    }

    @Test func anAcceptedPushPrintsItsIDsAndExitsZero() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs)
        defer { mock.stop() }
        let apnsID = "11111111-2222-4333-8444-555555555555"
        let result = try await Self.run(Self.mockArguments(mock) + [
            "--auth-key", Self.authKey, "--apns-id", apnsID, "--priority", "5", "--collapse-id", "c1",
            "--expiration", "0", "--payload", #"{"aps":{"alert":"from push-send"}}"#, ClientFixtures.deviceToken,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("status: 200\napns-id: \(apnsID)\napns-unique-id: "))
        let record = try #require(mock.capture.records(matching: CaptureFilter(apnsID: apnsID)).first)
        #expect(record.priority == .consideringDevicePower && record.collapseID == "c1" && record.expiration == 0)
        #expect(record.payload == Array(#"{"aps":{"alert":"from push-send"}}"#.utf8))
    }

    /// `push-send --push-type background` without `--priority` is accepted by the default mock.
    @Test func aBackgroundPushWithoutPriorityIsAccepted() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs)
        defer { mock.stop() }
        let result = try await Self.run(Self.mockArguments(mock) + [
            "--auth-key", Self.authKey, "--push-type", "background", "--payload", #"{"aps":{"content-available":1}}"#,
            ClientFixtures.deviceToken,
        ])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(mock.capture.records().map { $0.headers["apns-priority"] } == ["5"])
    }

    @Test func thePayloadComesFromAFileOrStandardInput() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs)
        defer { mock.stop() }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("push-send-\(UUID().uuidString).json").path
        try #"{"aps":{"alert":"file"}}"#.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let fromFile = try await Self.run(Self.mockArguments(mock) + ["--auth-key", Self.authKey, "--payload-file", file, ClientFixtures.deviceToken])
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        let fromStdin = try await Self.run(
            Self.mockArguments(mock) + ["--auth-key", Self.authKey, ClientFixtures.deviceToken], input: Array(#"{"aps":{"alert":"stdin"}}"#.utf8))
        #expect(fromStdin.status == 0, "\(fromStdin.stderr)")
        let payloads = Set(mock.capture.records().map { String(decoding: $0.payload, as: UTF8.self) })
        #expect(payloads == [#"{"aps":{"alert":"file"}}"#, #"{"aps":{"alert":"stdin"}}"#])
    }

    @Test func aRejectionPrintsTheReasonAndExitsOne() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs) { configuration in
            if let token = DeviceToken(Self.unregistered) {
                configuration.registry.devices[token] = RegisteredDevice(
                    token: token, bundleID: ClientFixtures.topic, environment: .sandbox,
                    state: .unregistered(since: Date(timeIntervalSince1970: 1_700_000_000)))
            }
        }
        defer { mock.stop() }
        let gone = try await Self.run(Self.mockArguments(mock) + ["--auth-key", Self.authKey, "--payload", "{}", Self.unregistered])
        #expect(gone.status == 1)
        #expect(gone.stdout.contains("status: 410\nreason: Unregistered\n"))
        #expect(gone.stdout.contains("timestamp: 1700000000000"))
        let malformed = try await Self.run(Self.mockArguments(mock) + ["--auth-key", Self.authKey, "--payload", "{}", "abc"])
        #expect(malformed.status == 1)
        #expect(malformed.stdout.contains("reason: BadDeviceToken"))
        try mock.faults.add(FaultRule(id: "down", action: .unavailable(.serviceUnavailable)))
        let down = try await Self.run(Self.mockArguments(mock) + ["--auth-key", Self.authKey, "--attempts", "2", "--payload", "{}", ClientFixtures.deviceToken])
        #expect(down.status == 1)
        #expect(down.stdout.contains("reason: ServiceUnavailable") && down.stdout.contains("attempts: 2"))
    }

    @Test func certificateAuthenticationWorksFromTheCommandLine() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs) {
            $0.server.clientCAPath = "\(ClientFixtures.certs)/ca.pem"
        }
        defer { mock.stop() }
        let result = try await Self.run(Self.mockArguments(mock) + [
            "--cert", "\(ClientFixtures.certs)/client.pem", "--key", "\(ClientFixtures.certs)/client.key",
            "--payload", #"{"aps":{"alert":"mtls"}}"#, ClientFixtures.deviceToken,
        ])
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// An answer that cannot be written (standard output on a full disk) is a runtime failure
    /// with a message, and an error that cannot be written is dropped: neither crashes.
    @Test func outputThatCannotBeWrittenFailsTheRunWithoutACrash() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs)
        defer { mock.stop() }
        let accepted = try await SpawnedProcess.runDetached(
            Self.executable, Self.mockArguments(mock) + ["--auth-key", Self.authKey, "--payload", "{}", ClientFixtures.deviceToken],
            full: .output)
        #expect(accepted.status == 1, "\(accepted.stderr)")
        #expect(accepted.stderr == "Error: cannot write the answer to standard output: No space left on device\n")
        #expect(mock.capture.records().count == 1, "the push itself went out")

        let unreachable = try await SpawnedProcess.runDetached(
            Self.executable, ["--url", "https://127.0.0.1:1", "--auth-key", Self.authKey, "--topic", "t", "--payload", "{}",
                              ClientFixtures.deviceToken], full: .error)
        #expect(unreachable.status == 1)
    }

    @Test func usageAndInputErrorsExitTwoWithAHint() async throws {
        let cases: [([String], String)] = [
            (["--auth-key", Self.authKey, "--topic", "t", "--payload", "{}"], "missing DEVICE_TOKEN"),
            (["--topic", "t", "--payload", "{}", "abcd"], "give --auth-key"),
            (["--auth-key", "nope", "--topic", "t", "--payload", "{}", "abcd"], "KEY_ID:TEAM_ID:P8_PATH"),
            (["--auth-key", "A:B:/nonexistent.p8", "--topic", "t", "--payload", "{}", "abcd"], "/nonexistent.p8"),
            (["--auth-key", Self.authKey, "--topic", "t", "--push-type", "loud", "--payload", "{}", "abcd"], "--push-type"),
            (["--auth-key", Self.authKey, "--topic", "t", "--priority", "7", "--payload", "{}", "abcd"], "--priority"),
            (["--auth-key", Self.authKey, "--topic", "t", "--url", "ftp://x", "--payload", "{}", "abcd"], "https://"),
            (["--auth-key", Self.authKey, "--topic", "t", "--apns-id", "nope", "--url", "https://127.0.0.1:1", "--payload", "{}", "abcd"],
             "canonical UUID"),
            (["--auth-key", Self.authKey, "--topic", "t", "--sandbox", "--production", "--payload", "{}", "abcd"], "not both"),
            (["--auth-key", Self.authKey, "--topic", "t", "--payload-file", "/nonexistent.json", "abcd"], "cannot read the payload file"),
            (["--bogus"], "unknown option"),
        ]
        for (arguments, message) in cases {
            let result = try await Self.run(arguments)
            #expect(result.status == 2, "\(arguments): \(result.stdout) \(result.stderr)")
            #expect(result.stderr.hasPrefix("Error: ") && result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("Usage: push-send") && result.stderr.contains("See 'push-send --help'"))
            #expect(result.stdout.isEmpty)
        }
        let help = try await Self.run(["--help"])
        #expect(help.status == 0 && help.stdout.hasPrefix("OVERVIEW: ") && help.stdout.contains("--auth-key"))
        let version = try await Self.run(["--version"])
        #expect(version.status == 0 && !version.stdout.isEmpty)
    }

    @Test func aServerThatCannotBeReachedIsARuntimeFailure() async throws {
        let result = try await Self.run([
            "--url", "https://127.0.0.1:1", "--auth-key", Self.authKey, "--topic", "t", "--payload", "{}", ClientFixtures.deviceToken,
        ])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("Error: ") && result.stderr.contains("connect"))
    }
}
