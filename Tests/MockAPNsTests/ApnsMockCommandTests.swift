import Foundation
import PushTestSupport
import Testing

/// The `apns-mock` command on its defaults, driven by independent clients: curl over TLS
/// with the test CA, and h2load with a provider token minted by PyJWT.
///
/// Ten minutes: h2load's 100,000 pushes take 90-110 s on a loaded two-core machine, and
/// 260 s with two more processes spinning; the limit catches a hang, not slowness.
@Suite(.timeLimit(.minutes(10)))
struct ApnsMockCommandTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let certs = root.appendingPathComponent("certs").path
    static let device = String(repeating: "ab", count: 32)

    /// The built `apns-mock`, in the build folder that holds the test bundle.
    static var executable: URL {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [bundle, bundle.deletingLastPathComponent(), Bundle.main.bundleURL]
            .map { $0.appendingPathComponent("apns-mock") }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }

    /// A running `apns-mock` and the URLs its banner printed.
    final class RunningMock: @unchecked Sendable {
        // Unchecked: written once during start, then only read.
        let process: BackgroundProcess
        var urls: [String: String] = [:]

        init(arguments: [String], environment: [String: String] = [:]) throws {
            process = try BackgroundProcess(
                ApnsMockCommandTests.executable.path, arguments,
                environment: environment.merging(["APNS_MOCK_CERTS": ApnsMockCommandTests.certs]) { $1 })
            let banner = process.waitForOutput(containing: "topics", timeout: 20) ?? process.standardOutput
            for line in banner.split(separator: "\n") {
                let parts = line.split(separator: " ", omittingEmptySubsequences: true)
                if parts.count == 2 { urls[String(parts[0])] = String(parts[1]) }
            }
        }

        func stop() -> Int32 {
            process.terminate()
        }

        /// The log lines (standard error) written so far.
        func takeLog() -> [String] {
            process.standardError.split(separator: "\n").map(String.init)
        }
    }

    static func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let result = try SpawnedProcess.run(tool, arguments, timeout: 300)
        return (result.status, result.stdout + result.stderr)
    }

    struct CommandFailure: Error { var output: String }

    static func pyjwtToken() throws -> String {
        let script = """
            import jwt, sys, time
            key = open(sys.argv[1]).read()
            print(jwt.encode({"iss": "TEAM000001", "iat": int(time.time())}, key, algorithm="ES256", headers={"kid": "ABC123DEFG"}))
            """
        let result = try run("python3", ["-c", script, "\(certs)/AuthKey_ABC123DEFG.p8"])
        guard result.status == 0 else { throw CommandFailure(output: result.output) }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// What the blocking part observed; asserted on the test's own task.
    struct Observations: Sendable {
        var urls: [String: String]
        var curl: String
        var h2load: String
        var exitStatus: Int32
        var lines: [String]
        var signature: String
        var log: [String]
    }

    /// Run away from the checkout, the defaults find no test material: a usage error that
    /// says where it looked and how to point it elsewhere, not a bare file error.
    @Test func withoutItsTestMaterialItExitsTwoNamingTheFolderAndTheVariable() async throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("no-certs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        let result = try await SpawnedProcess.runDetached(
            Self.executable.path, ["--port", "0", "--sandbox-port", "0", "--control-port", "0", "--channel-sandbox-port", "0", "--channel-port", "0"],
            environment: ["APNS_MOCK_CERTS": empty.path], timeout: 30)
        #expect(result.status == 2)
        #expect(result.stderr.contains("cannot read key file '\(empty.path)/AuthKey_ABC123DEFG.p8'"), "\(result.stderr)")
        #expect(result.stderr.contains("The defaults read the test keys and certificates in '\(empty.path)'"), "\(result.stderr)")
        #expect(result.stderr.contains("set APNS_MOCK_CERTS"), "\(result.stderr)")
        let help = try await SpawnedProcess.runDetached(Self.executable.path, ["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("APNS_MOCK_CERTS"), "\(help.stdout)")
    }

    /// A container or CI service sets the mock up through `APNS_MOCK_*` variables; a flag
    /// on the command line wins over its variable.
    @Test func optionsMayComeFromTheEnvironmentAndFlagsWin() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("env-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let seen = try await onThread { () throws -> (urls: [String: String], banner: String, curl: String, status: Int32, log: String) in
            let mock = try RunningMock(arguments: ["--capture", "\(folder.path)/flag.jsonl"], environment: [
                "APNS_MOCK_PORT": "0", "APNS_MOCK_SANDBOX_PORT": "0", "APNS_MOCK_CONTROL_PORT": "0",
                "APNS_MOCK_CHANNEL_PORT": "0", "APNS_MOCK_CHANNEL_SANDBOX_PORT": "0",
                "APNS_MOCK_CAPTURE": "\(folder.path)/variable.jsonl", "APNS_MOCK_TOPIC": "com.example.app, com.example.other",
                "APNS_MOCK_LOG_LEVEL": "warning",
            ])
            let banner = mock.process.standardOutput
            guard let sandbox = mock.urls["sandbox"] else { return (mock.urls, banner, "", mock.stop(), mock.takeLog().joined()) }
            let curl = try Self.run("curl", [
                "-s", "-w", "%{http_code}", "--http2", "--cacert", "\(Self.certs)/ca.pem", "-H", "authorization: bearer \(try Self.pyjwtToken())",
                "-H", "apns-topic: com.example.other", "-d", #"{"aps":{"alert":"hi"}}"#, "\(sandbox)/3/device/\(Self.device)",
            ])
            let status = mock.stop()
            return (mock.urls, banner, curl.output, status, mock.takeLog().joined(separator: "\n"))
        }
        #expect(seen.banner.contains("topics      com.example.app, com.example.other"), "\(seen.banner)")
        #expect(seen.urls["capture"] == "\(folder.path)/flag.jsonl", "the flag wins: \(seen.urls)")
        #expect(seen.curl == "200", "the second topic from APNS_MOCK_TOPIC is served: \(seen.curl)")
        #expect(seen.status == 0)
        #expect(!seen.log.contains("push accepted"), "APNS_MOCK_LOG_LEVEL=warning: \(seen.log)")
        let lines = try String(contentsOf: folder.appendingPathComponent("flag.jsonl"), encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("variable.jsonl").path))
    }

    /// `APNS_MOCK_CONTROL_TOKEN_FILE` (a mounted secret) sets the control API's access token.
    @Test func theControlAPIAccessTokenComesFromAFile() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("token-\(UUID().uuidString)")
        try Data("control-token-from-a-file-0123\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let seen = try await onThread { () throws -> (open: String, refused: String, allowed: String, log: String) in
            let mock = try RunningMock(arguments: ["--port", "0", "--sandbox-port", "0", "--control-port", "0", "--channel-sandbox-port", "0", "--channel-port", "0"],
                                       environment: ["APNS_MOCK_CONTROL_TOKEN_FILE": file.path])
            guard let control = mock.urls["control"] else { _ = mock.stop(); return ("", "", "", "no control URL: \(mock.urls)") }
            let open = try Self.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "\(control)/healthz"]).output
            let refused = try Self.run("curl", ["-s", "-w", " %{http_code}", "\(control)/pushes"]).output
            let allowed = try Self.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}",
                                                "-H", "authorization: Bearer control-token-from-a-file-0123", "\(control)/pushes"]).output
            _ = mock.stop()
            return (open, refused, allowed, mock.takeLog().joined(separator: "\n"))
        }
        #expect(seen.open == "200")
        #expect(seen.refused.hasSuffix(" 401") && seen.refused.contains("needs its access token"), "\(seen.refused)")
        #expect(seen.allowed == "200", "the file's trailing newline is not part of the token")
        #expect(!seen.log.contains("without an access token"), "no warning on loopback: \(seen.log)")
    }

    /// A bad variable or a bad file it names is the usual usage error, naming the variable
    /// or the file: exit 2.
    @Test func badSettingsFromTheEnvironmentExitTwoNamingTheVariableOrTheFile() async throws {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID().uuidString).json")
        try Data(#"{"server":{"sandbox_port":"2198"}}"#.utf8).write(to: config)
        defer { try? FileManager.default.removeItem(at: config) }
        let cases: [([String: String], String)] = [
            (["APNS_MOCK_NO_TLS": "maybe"], "APNS_MOCK_NO_TLS expects 1, true or yes (on) or 0, false or no (off), got 'maybe'"),
            (["APNS_MOCK_PORT": "http"], "APNS_MOCK_PORT expects an integer from 0 to 65535, got 'http'"),
            (["APNS_MOCK_CONFIG": config.path], "\(config.path): server.sandbox_port: expected an integer 0-65535, found string \"2198\""),
            (["APNS_MOCK_CAPTURE": "/nonexistent-folder/pushes.jsonl"], "server.capture_file: cannot write '/nonexistent-folder/pushes.jsonl'"),
            (["APNS_MOCK_CAPTURE_FSYNC": "1", "APNS_MOCK_CAPTURE": ""], "APNS_MOCK_CAPTURE_FSYNC syncs the capture file, and there is none"),
            (["APNS_MOCK_CONTROL_TOKEN": "0123456789abcdef", "APNS_MOCK_CONTROL_TOKEN_FILE": config.path],
             "give APNS_MOCK_CONTROL_TOKEN or APNS_MOCK_CONTROL_TOKEN_FILE, not both"),
            (["APNS_MOCK_CONTROL_TOKEN": "short"], "server.control_token: expected 16 to 4096 visible ASCII characters"),
            (["APNS_MOCK_CONTROL_TOKEN_FILE": "/nonexistent/token"], "APNS_MOCK_CONTROL_TOKEN_FILE: cannot read '/nonexistent/token'"),
        ]
        for (environment, message) in cases {
            let result = try await SpawnedProcess.runDetached(
                Self.executable.path, [], environment: environment.merging(["APNS_MOCK_CERTS": Self.certs]) { $1 }, timeout: 30)
            #expect(result.status == 2, "\(environment): \(result.stderr)")
            #expect(result.stderr.hasPrefix("Error: ") && result.stderr.contains(message), "\(environment): \(result.stderr)")
        }
        let help = try await SpawnedProcess.runDetached(Self.executable.path, ["--help"])
        #expect(help.stdout.contains("APNS_MOCK_<OPTION> (APNS_MOCK_CONFIG for --config)"), "\(help.stdout)")
    }

    /// Started away from the checkout with no variable set, the defaults use the test
    /// material SwiftPM copied beside the binary, and a push signed with the checkout's key
    /// (the same files) is accepted.
    @Test func awayFromTheCheckoutItUsesTheMaterialBuiltBesideIt() async throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("elsewhere-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        let seen = try await onThread { () throws -> (ca: String?, curl: String, status: Int32) in
            let process = try BackgroundProcess("/bin/sh", [
                "-c", "cd \"$0\" && exec env -u APNS_MOCK_CERTS \"$1\" --port 0 --sandbox-port 0 --control-port 0 --channel-sandbox-port 0 --channel-port 0",
                empty.path, Self.executable.path,
            ])
            let banner = process.waitForOutput(containing: "topics", timeout: 20) ?? process.standardOutput
            var urls: [String: String] = [:]
            for line in banner.split(separator: "\n") {
                let parts = line.split(separator: " ", omittingEmptySubsequences: true)
                if parts.count == 2 { urls[String(parts[0])] = String(parts[1]) }
            }
            guard let ca = urls["CA"], let sandbox = urls["sandbox"] else {
                return (nil, banner + process.standardError, process.terminate())
            }
            let token = try Self.pyjwtToken()
            let curl = try Self.run("curl", [
                "-s", "-i", "--http2", "--cacert", ca, "-H", "authorization: bearer \(token)",
                "-H", "apns-topic: com.example.app", "-d", #"{"aps":{"alert":"hi"}}"#, "\(sandbox)/3/device/\(Self.device)",
            ])
            return (ca, curl.output, process.terminate())
        }
        let ca = try #require(seen.ca, "\(seen.curl)")
        #expect(ca.hasSuffix("_MockAPNs.resources/TestCertificates/ca.pem"), "\(ca)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: ca)) == Data(contentsOf: URL(fileURLWithPath: "\(Self.certs)/ca.pem")))
        #expect(seen.curl.hasPrefix("HTTP/2 200"), "\(seen.curl)")
        #expect(seen.status == 0)
    }

    /// Capture lines the file loses (here every one: /dev/full) are answered 500, logged as
    /// they happen, counted in /metrics, and make the exit status 1 instead of "capture flushed".
    @Test func lostCaptureLinesAreLoggedCountedAndFailTheExit() async throws {
        let seen = try await onThread { () throws -> (metrics: String, status: Int32, log: String, answers: [String]) in
            let mock = try RunningMock(arguments: ["--port", "0", "--sandbox-port", "0", "--control-port", "0", "--channel-sandbox-port", "0", "--channel-port", "0", "--capture", "/dev/full"])
            guard let sandbox = mock.urls["sandbox"], let control = mock.urls["control"] else {
                return ("", mock.stop(), "no URLs in the banner: \(mock.urls)", [])
            }
            let token = try Self.pyjwtToken()
            var answers: [String] = []
            for _ in 0..<3 {
                answers.append(try Self.run("curl", ["-s", "--http2", "--cacert", "\(Self.certs)/ca.pem", "-H", "authorization: bearer \(token)",
                                                     "-H", "apns-topic: com.example.app", "-d", #"{"aps":{"alert":"hi"}}"#,
                                                     "-w", " %{http_code}", "\(sandbox)/3/device/\(Self.device)"]).output)
            }
            // The loss is reported by a timer, once a second while it grows.
            _ = mock.process.waitForError(containing: "capture file: 3 line(s) lost so far", timeout: 30)
            let metrics = try Self.run("curl", ["-s", "\(control)/metrics"]).output
            let status = mock.stop()
            return (metrics, status, mock.takeLog().joined(separator: "\n"), answers)
        }
        #expect(seen.answers == Array(repeating: #"{"reason":"InternalServerError"} 500"#, count: 3), "an answer claimed a capture")
        #expect(seen.metrics.contains(#"apns_mock_capture_file_lines_total{result="dropped"} 3"#), "\(seen.metrics)")
        #expect(seen.log.contains("capture file: 3 line(s) lost so far: cannot write /dev/full"), "\(seen.log)")
        #expect(seen.log.contains("stopped; 3 capture line(s) could not be written"), "\(seen.log)")
        #expect(seen.status == 1)
    }

    /// `--log-level warning` leaves out the line per push, and keeps what goes wrong.
    @Test func aLogLevelAboveInfoLeavesOutTheLinePerPush() async throws {
        let log = try await onThread { () throws -> String in
            let mock = try RunningMock(arguments: ["--port", "0", "--sandbox-port", "0", "--control-port", "0", "--channel-sandbox-port", "0", "--channel-port", "0", "--log-level", "warning"])
            guard let sandbox = mock.urls["sandbox"] else { _ = mock.stop(); return "no URLs in the banner" }
            let answer = try Self.run("curl", ["-s", "--http2", "--cacert", "\(Self.certs)/ca.pem", "-H", "authorization: bearer \(try Self.pyjwtToken())",
                                               "-H", "apns-topic: com.example.app", "-d", #"{"aps":{"alert":"hi"}}"#,
                                               "-w", "%{http_code}", "\(sandbox)/3/device/\(Self.device)"]).output
            _ = mock.stop()
            return answer + "\n" + mock.takeLog().joined(separator: "\n")
        }
        #expect(log.hasPrefix("200"), "\(log)")
        #expect(!log.contains("push accepted"), "\(log)")
    }

    /// The line per push says why a push was rejected, and names the lint codes that fired;
    /// an HTTP/1.1 request is logged as refused.
    @Test func theLogLineSaysWhyAndNamesTheLints() async throws {
        let log = try await onThread { () throws -> [String] in
            let mock = try RunningMock(arguments: ["--port", "0", "--sandbox-port", "0", "--control-port", "0", "--channel-sandbox-port", "0", "--channel-port", "0"])
            guard let sandbox = mock.urls["sandbox"] else { _ = mock.stop(); return ["no URLs in the banner"] }
            let token = try Self.pyjwtToken()
            for topic in ["com.example.wrong", "com.example.app"] {
                _ = try Self.run("curl", ["-s", "--http2", "--cacert", "\(Self.certs)/ca.pem", "-H", "authorization: bearer \(token)",
                                          "-H", "apns-topic: \(topic)", "-d", #"{"aps":{"alert":"hi"}}"#,
                                          "\(sandbox)/3/device/\(Self.device)"])
            }
            _ = try Self.run("curl", ["-s", "--http1.1", "--cacert", "\(Self.certs)/ca.pem", "-d", "{}", "\(sandbox)/3/device/\(Self.device)"])
            _ = mock.stop()
            return mock.takeLog()
        }
        let http1 = try #require(log.first { $0.contains("HTTP/1.x request refused: APNs speaks HTTP/2 only") }, "\(log)")
        #expect(http1.contains("http.method=POST") && http1.contains("push.env=sandbox"), "\(http1)")
        let rejected = try #require(log.first { $0.contains(" push rejected") }, "\(log)")
        #expect(rejected.contains(#"push.explanation="topic com.example.wrong is not served; the mock serves com.example.app and its push-type topics""#),
                "\(rejected)")
        let accepted = try #require(log.first { $0.contains(" push accepted") }, "\(log)")
        #expect(accepted.contains("push.lints=header.push-type-missing"), "curl sends no apns-push-type: \(accepted)")
        #expect(!accepted.contains("push.explanation"))
    }

    @Test func curlAndH2loadWithAPyJWTTokenAreAnsweredAndEveryPushIsCapturedOnce() async throws {
        let seen = try await onThread { try Self.curlAndH2load() }
        #expect(seen.urls["CA"] == "\(Self.certs)/ca.pem")
        #expect(seen.curl.hasPrefix("HTTP/2 200"), "\(seen.curl)")
        #expect(seen.curl.contains("apns-id: "))
        #expect(seen.h2load.contains("status codes: 100000 2xx, 0 3xx, 0 4xx, 0 5xx"), "\(seen.h2load.suffix(800))")
        #expect(seen.exitStatus == 0, "SIGTERM shuts down cleanly")
        #expect(seen.lines.count == 100_001)
        var ids = Set<Substring>()
        for line in seen.lines {
            guard let start = line.range(of: "\"apns_id\":\"")?.upperBound, let end = line[start...].firstIndex(of: "\"") else { continue }
            ids.insert(line[start..<end])
        }
        #expect(ids.count == 100_001, "each push is captured exactly once, by apns-id")
        #expect(!seen.lines.contains { $0.contains(seen.signature) }, "the token's signature is never captured")

        let pushLines = seen.log.filter { $0.contains(" push accepted") || $0.contains(" push rejected") }
        #expect(pushLines.count == 100_001, "one info line per push")
        let curlLine = try #require(pushLines.first)
        #expect(curlLine.contains(" info apns-mock: ") && curlLine.contains("push.status=200"), "\(curlLine)")
        #expect(curlLine.contains("push.device=abab…abab") && curlLine.contains("push.topic=com.example.app"), "\(curlLine)")
        #expect(!seen.log.contains { $0.contains("hello") || $0.contains("Build finished") || $0.contains(Self.device) },
                "no payload content and no full device token in the log")
    }

    /// Blocking throughout (child processes), so it runs on a thread of its own.
    static func curlAndH2load() throws -> Observations {
        let capture = FileManager.default.temporaryDirectory.appendingPathComponent("capture-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: capture) }
        let mock = try RunningMock(arguments: ["--port", "0", "--sandbox-port", "0", "--control-port", "0", "--channel-sandbox-port", "0", "--channel-port", "0", "--capture", capture.path])
        guard let production = mock.urls["production"] else {
            _ = mock.stop()
            throw CommandFailure(output: "no production URL in the banner: \(mock.urls)")
        }
        let token = try pyjwtToken()
        let headers = ["-H", "authorization: bearer \(token)", "-H", "apns-topic: com.example.app", "-H", "apns-push-type: alert"]
        let curl = try run("curl", ["-s", "-i", "--http2", "--cacert", "\(certs)/ca.pem"] + headers
            + ["-d", #"{"aps":{"alert":"hello"}}"#, "\(production.replacingOccurrences(of: "127.0.0.1", with: "localhost"))/3/device/\(device)"])
        let body = FileManager.default.temporaryDirectory.appendingPathComponent("body-\(UUID().uuidString).json")
        try Data(#"{"aps":{"alert":{"title":"Build finished","body":"All 42 checks passed"},"badge":1}}"#.utf8).write(to: body)
        defer { try? FileManager.default.removeItem(at: body) }
        let h2load = try run("h2load", ["-n", "100000", "-c", "4", "-m", "100", "-t", "1", "-d", body.path] + headers
            + ["\(production)/3/device/\(device)"])
        let status = mock.stop()
        let lines = try String(contentsOf: capture, encoding: .utf8).split(separator: "\n").map(String.init)
        return Observations(urls: mock.urls, curl: curl.output, h2load: h2load.output, exitStatus: status, lines: lines,
                            signature: String(token.split(separator: ".")[2]), log: mock.takeLog())
    }

    /// A banner that cannot be written (standard output on a full disk) fails the start,
    /// exit 1 with a log line saying why, instead of crashing in the write.
    @Test func aBannerThatCannotBeWrittenFailsTheStartWithoutACrash() async throws {
        let result = try await SpawnedProcess.runDetached(
            Self.executable.path, ["--port", "0", "--sandbox-port", "0", "--control-port", "0", "--channel-sandbox-port", "0", "--channel-port", "0"], full: .output,
            environment: ["APNS_MOCK_CERTS": Self.certs], timeout: 30)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("cannot start: cannot write the banner to standard output: No space left on device"),
                "\(result.stderr)")
    }

    @Test func usageErrorsExitWithTwo() async throws {
        let result = try await onThread { try Self.run(Self.executable.path, ["--port", "http"]) }
        #expect(result.status == 2)
        #expect(result.output.hasPrefix("Error: --port expects an integer from 0 to 65535, got 'http'"))
        let level = try await onThread { try Self.run(Self.executable.path, ["--log-level", "loud"]) }
        #expect(level.status == 2)
        #expect(level.output.hasPrefix("Error: --log-level expects one of trace, debug, info, notice, warning, error, critical, got 'loud'"))
        let fsync = try await onThread { try Self.run(Self.executable.path, ["--capture-fsync"]) }
        #expect(fsync.status == 2)
        #expect(fsync.output.hasPrefix("Error: --capture-fsync syncs the capture file, and there is none: add --capture FILE"))
    }

    /// A port clash is the same usage error (exit 2) whether the flags or the file make it:
    /// the configuration is checked after the flags are applied, before anything listens.
    @Test func portClashesFromFlagsAreUsageErrorsAsFromTheFile() async throws {
        let flags = try await onThread {
            try Self.run(Self.executable.path, ["--port", "4200", "--sandbox-port", "4200", "--control-port", "0", "--channel-sandbox-port", "0", "--channel-port", "0"])
        }
        #expect(flags.status == 2, "\(flags.output)")
        #expect(flags.output.hasPrefix("Error: server.sandbox_port: port 4200 is already used by production_port\nUsage: apns-mock"),
                "\(flags.output)")

        let file = NSTemporaryDirectory() + "apns-mock-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: file) }
        try #"{"server":{"production_port":4200,"sandbox_port":4200,"control_port":0}}"#.write(toFile: file, atomically: true, encoding: .utf8)
        let config = try await onThread { try Self.run(Self.executable.path, ["--config", file]) }
        #expect(config.status == 2, "\(config.output)")
        #expect(config.output.hasPrefix("Error: \(file): server.sandbox_port: port 4200 is already used by production_port\nUsage: apns-mock"),
                "\(config.output)")
    }

    /// A file with a camelCase field name is a usage error (exit 2) that names the field's
    /// snake_case name, before anything listens.
    @Test func aCamelCaseFieldInTheFileExitsTwoNamingItsNewName() async throws {
        let file = NSTemporaryDirectory() + "apns-mock-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: file) }
        try #"{"keys":[{"keyId":"ABC123DEFG","team_id":"TEAM000001","path":"k.p8"}]}"#
            .write(toFile: file, atomically: true, encoding: .utf8)
        let result = try await onThread { try Self.run(Self.executable.path, ["--config", file, "--control-port", "0", "--channel-sandbox-port", "0", "--channel-port", "0"]) }
        #expect(result.status == 2, "\(result.output)")
        #expect(result.output.hasPrefix(#"Error: \#(file): keys[0].keyId: unknown field; it is now "key_id""#), "\(result.output)")
    }

    /// Files and addresses the person gave that cannot work are usage errors (exit 2) that
    /// say why, found before any listener starts, each naming the file or address and the
    /// problem (a key path naming a folder says so, not an NSCocoaErrorDomain code).
    @Test func unusableFilesAndAddressesAreUsageErrorsThatSayWhy() async throws {
        let ports = ["--port", "0", "--sandbox-port", "0", "--control-port", "0", "--channel-sandbox-port", "0", "--channel-port", "0"]
        let cases: [([String], String)] = [
            (["--tls-cert", "/nonexistent/server.pem"], "Error: server.certificate: cannot read '/nonexistent/server.pem': no such file or directory"),
            (["--tls-key", NSTemporaryDirectory()], "Error: server.private_key: cannot read '\(NSTemporaryDirectory())': is a directory, not a file"),
            (["--capture", "/nonexistent/capture.jsonl"], "Error: server.capture_file: cannot write '/nonexistent/capture.jsonl': its folder /nonexistent: no such file or directory"),
            (["--host", "999.1.1.1"], #"Error: server.host: expected an IPv4 address such as 127.0.0.1, found "999.1.1.1""#),
            (["--auth-key", "ABC123DEFG:TEAM000001:/dev/null"], "Error: --auth-key: cannot read key file '/dev/null': is not a regular file"),
            // Two keys under one ID: the second would silently replace the first.
            (["--auth-key", "ABC123DEFG:TEAM000001:\(Self.certs)/AuthKey_ABC123DEFG.p8",
              "--auth-key", "ABC123DEFG:TEAM000002:\(Self.certs)/AuthKey_XYZ987WXYZ.p8"],
             #"Error: --auth-key: key ID "ABC123DEFG" is given more than once"#),
            (["--no-tls", "--tls-cert", "\(Self.certs)/server.pem"],
             "Error: --tls-cert and --tls-key serve TLS, which --no-tls turns off; give one or the other"),
        ]
        for (arguments, message) in cases {
            let result = try await onThread { try Self.run(Self.executable.path, ports + arguments) }
            #expect(result.status == 2, "\(arguments): \(result.output)")
            #expect(result.output.hasPrefix(message + "\nUsage: apns-mock"), "\(arguments): \(result.output)")
        }
    }

    /// A TCP port nothing listens on at the moment: the one the kernel picks for port 0.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw CommandFailure(output: "socket: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let picked = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard picked else { throw CommandFailure(output: "bind: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// A SIGTERM sent while the mock is still starting (a CI script stopping it the moment it
    /// is spawned, or as its banner appears) is held, not lost and not fatal: the mock comes
    /// up, then stops as asked, flushing its capture, status 0. A handler installed after
    /// start-up would miss it: the mock would die unflushed (143) or ignore it until SIGKILL (137).
    @Test func aSIGTERMDuringStartupStopsItCleanly() async throws {
        let capture = NSTemporaryDirectory() + "apns-mock-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: capture) }
        let ended = try await onThread {
            try BackgroundProcess.stopWhileStarting(
                Self.executable.path, ["--port", "0", "--sandbox-port", "0", "--control-port", "0", "--channel-sandbox-port", "0", "--channel-port", "0", "--capture", capture],
                environment: ["APNS_MOCK_CERTS": Self.certs])
        }
        #expect(ended.held, "the mock never held SIGINT and SIGTERM: \(ended.log)")
        #expect(ended.status == 0, "\(ended.output)\(ended.log)")
        #expect(ended.output.contains("production"), "it came up before stopping: \(ended.output)")
        #expect(ended.log.contains("stopped; capture flushed"), "\(ended.log)")
    }

    /// A clash in the file that a flag resolves is no error: the configuration is checked
    /// once, after the flags, and the mock starts on the file's other port. A clash the flags
    /// leave in the file is still the usage error naming the file.
    @Test func aFlagMayResolveAPortClashInTheFile() async throws {
        let file = NSTemporaryDirectory() + "apns-mock-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: file) }
        var port = 0
        var started: (urls: [String: String], log: String, status: Int32) = ([:], "", 0)
        // The free port may be taken by a listener of a test running alongside before the mock
        // binds it: then the mock cannot start, and another port is tried.
        for _ in 0..<5 {
            port = try Self.freePort()
            try #"{"server":{"production_port":\#(port),"sandbox_port":\#(port),"control_port":0,"channel_sandbox_port":0,"channel_production_port":0}}"#
                .write(toFile: file, atomically: true, encoding: .utf8)
            started = try await onThread { () throws -> (urls: [String: String], log: String, status: Int32) in
                let mock = try RunningMock(arguments: ["--config", file, "--sandbox-port", "0"])
                return (mock.urls, mock.process.standardOutput + mock.process.standardError, mock.stop())
            }
            guard started.urls.isEmpty, started.log.contains("Address already in use") else { break }
        }
        #expect(started.urls["production"]?.hasSuffix(":\(port)") == true, "\(started.log)")
        #expect(started.urls["sandbox"].map { !$0.hasSuffix(":\(port)") && !$0.hasSuffix(":0") } == true, "\(started.log)")
        #expect(started.status == 0, "\(started.log)")

        let left = try await onThread { try Self.run(Self.executable.path, ["--config", file, "--host", "127.0.0.1"]) }
        #expect(left.status == 2, "\(left.output)")
        #expect(left.output.hasPrefix("Error: \(file): server.sandbox_port: port \(port) is already used by production_port\nUsage: apns-mock"),
                "\(left.output)")
    }
}
