import Foundation
import HTTPTransport
import HermesContract
import JWTVerify
import MockAPNs
import PushTestSupport
import StrictJSON
import Testing

/// push-inspect against a real mock: the capture file it writes, and its control API.
@Suite(.timeLimit(.minutes(2)))
struct PushInspectLiveMockTests {
    typealias P = PushInspectProcess
    static let device = String(repeating: "ab", count: 32)

    static func client(for url: String, trust: String?) throws -> HTTP2Client {
        let address = url.split(separator: "/").last.map(String.init) ?? ""
        let colon = address.lastIndex(of: ":") ?? address.endIndex
        var configuration = HTTP2ClientConfiguration(
            host: String(address[..<colon]), port: Int(address[address.index(after: colon)...]) ?? 0,
            tls: trust.map { .makeClientConfiguration(trustRootsPath: $0) })
        configuration.serverName = "localhost"
        return try HTTP2Client(configuration: configuration)
    }

    /// Sends the four contract pushes and one whose body leaks a command, as the gateway would;
    /// `omitting` leaves a header out of all of them.
    static func sendHermesPushes(to mock: MockAPNsServer, omitting omitted: String? = nil) async throws {
        let key = try ES256PrivateKey(contentsOfFile: "\(P.certs)/AuthKey_ABC123DEFG.p8")
        let token = try JWTSigner(key: key, keyID: "ABC123DEFG").makeProviderToken(teamID: "TEAM000001", issuedAt: Date())
        let client = try client(for: mock.sandboxURL, trust: mock.trustRootsPath)
        let now = Int64(Date().timeIntervalSince1970)
        for (index, type) in (HermesPushType.allCases + [.complete]).enumerated() {
            let notification = HermesNotification(type: type, sessionID: "sess-\(index)")
            var body = notification.payload()
            if index == 4 {
                body = Array(String(decoding: body, as: UTF8.self)
                    .replacingOccurrences(of: "Hermes finished the turn", with: "sudo rm -rf /").utf8)
            }
            var headers: HTTPHeaders = [
                "authorization": "bearer \(token)", "apns-topic": "com.example.app", "apns-push-type": "alert",
                "apns-priority": "10", "apns-expiration": String(notification.expiration(sentAt: now)),
                "apns-collapse-id": notification.collapseID, "apns-id": UUID().uuidString.lowercased(),
            ]
            if let omitted { headers.remove(name: omitted) }
            let response = try await client.send(HTTPClientRequest(method: "POST", path: "/3/device/\(device)", headers: headers, body: body))
            #expect(response.status == 200)
        }
        await client.close()
    }

    @Test func checksTheCaptureFileTheMockWrote() async throws {
        let capture = NSTemporaryDirectory() + "push-inspect-live-\(UUID().uuidString).jsonl"
        let mock = try MockAPNsServer.startForTesting(certsDirectory: P.certs) { $0.server.captureFilePath = capture }
        do {
            try await Self.sendHermesPushes(to: mock)
        } catch {
            mock.stop()
            throw error
        }
        mock.stop()
        let result = try await P.run(["check", "--profile", "hermes", "--profile", "apple", capture])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("checked 5 pushes: 4 passed, 1 failed"))
        #expect(result.stdout.contains("\(capture)#5"))
        #expect(result.stdout.contains("hermes.leaks[shell-command] aps.alert.body"))
        let stats = try await P.run(["stats", capture])
        #expect(stats.stdout.contains("5  accepted"))
    }

    /// A captured broadcast is judged as a Live Activity push: `apple.liveactivity` finds a
    /// broadcast that starts an activity, and no rule asks it for an `apns-topic`.
    @Test func aCapturedBroadcastIsJudgedAsALiveActivityPush() async throws {
        let capture = NSTemporaryDirectory() + "push-inspect-broadcast-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: capture) }
        let mock = try MockAPNsServer.startForTesting(certsDirectory: P.certs) { $0.server.captureFilePath = capture }
        do {
            let channel = try mock.channels.create(bundleID: "com.example.app", environment: .sandbox, storagePolicy: .noMessageStored)
            let key = try ES256PrivateKey(contentsOfFile: "\(P.certs)/AuthKey_ABC123DEFG.p8")
            let token = try JWTSigner(key: key, keyID: "ABC123DEFG").makeProviderToken(teamID: "TEAM000001", issuedAt: Date())
            let client = try Self.client(for: mock.sandboxURL, trust: mock.trustRootsPath)
            let body = #"{"aps":{"event":"start","timestamp":1800000000,"content-state":{},"attributes-type":"A","attributes":{},"alert":"x"}}"#
            let headers: HTTPHeaders = [
                "authorization": "bearer \(token)", "apns-channel-id": channel.id, "apns-push-type": "LiveActivity",
                "apns-expiration": "0",
            ]
            let response = try await client.send(HTTPClientRequest(method: "POST", path: "/4/broadcasts/apps/com.example.app",
                                                                   headers: headers, body: Array(body.utf8)))
            await client.close()
            #expect(response.status == 200)
        } catch {
            mock.stop()
            throw error
        }
        mock.stop()
        let result = try await P.run(["check", "--profile", "apple", capture])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("apple.liveactivity aps.event: a broadcast cannot start a Live Activity"), "\(result.stdout)")
        #expect(!result.stdout.contains("apple.topic-suffix") && !result.stdout.contains("apple.push-type"), "\(result.stdout)")
    }

    @Test func checksALiveMockThroughItsControlAPI() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: P.certs)
        defer { mock.stop() }
        // Started before the pushes are sent: --wait holds until they have arrived.
        async let waiting = P.run(["check", "--profile", "hermes", "--from", mock.controlURL, "--wait", "5", "--timeout", "60"])
        try await Self.sendHermesPushes(to: mock)
        let result = try await waiting
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("checked 5 pushes: 4 passed, 1 failed"))
        #expect(result.stdout.contains("hermes.leaks[shell-command] aps.alert.body"))

        let report = NSTemporaryDirectory() + "push-inspect-wait-\(UUID().uuidString).xml"
        defer { try? FileManager.default.removeItem(atPath: report) }
        let short = try await P.run(["check", "--profile", "hermes", "--from", mock.controlURL, "--wait", "9", "--timeout", "1",
                                     "--junit", report])
        #expect(short.status == 1, "a wait that runs out fails the check")
        #expect(short.stderr.contains("only 5 of 9 pushes arrived"))
        #expect(short.stdout.contains("fewer pushes than --wait asked for"), "\(short.stdout)")
        // The report fails too, with the shortfall, not only the one leaking push.
        let junit = try String(contentsOfFile: report, encoding: .utf8)
        #expect(junit.contains(#"<testcase classname="push-inspect.input" name="wait">"#), "\(junit)")
        #expect(junit.contains("only 5 of 9 pushes arrived within 1 s"), "\(junit)")
        #expect(junit.contains(#"failures="3" errors="0""#), "two rules on the leaking push, and the wait: \(junit)")

        let show = try await P.run(["show", "--from", mock.controlURL])
        #expect(show.status == 0 && show.stdout.contains("Approval needed — Hermes needs your approval"))

        let unreachable = try await P.run(["check", "--from", "http://127.0.0.1:1"])
        #expect(unreachable.status == 2 && unreachable.stderr.contains("cannot reach the control API"))
        #expect(try await P.run(["check", "--from", "ftp://x"]).status == 2)
    }

    /// A base URL's path prefix is named once in an error about the request, not twice
    /// (`…/prefix/prefix/pushes`).
    @Test func aFromPrefixIsNamedOnceInErrors() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: P.certs)
        defer { mock.stop() }
        let result = try await P.run(["check", "--from", mock.controlURL + "/prefix/"])
        #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("error: \(mock.controlURL)/prefix/pushes: the control API answered 404"), "\(result.stderr)")
    }

    /// A server that is not the mock's control API decides the body of its answer: the error
    /// quotes it escaped, so nothing in it acts on the terminal, and cut short.
    @Test func anUnexpectedAnswerIsQuotedEscapedInTheError() async throws {
        let body = "no \u{1B}[31mpushes\u{202E} here\n" + String(repeating: "x", count: 2000)
        let server = try RecordingHTTPServer { _, _ in HTTPResponse(status: 503, text: body) }
        defer { server.stop() }
        let result = try await P.run(["check", "--from", server.baseURL])
        #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains(#"the control API answered 503: "no \u001b[31mpushes\u202e here\n"#), "\(result.stderr)")
        #expect(result.stderr.contains("(cut short)"), "\(result.stderr)")
        #expect(!result.stderr.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{202E}" }, "\(result.stderr)")
        #expect(result.stderr.count < 1000, "\(result.stderr.count) characters")
    }

    /// With `--from`, the filters go to the control API: `--wait 1` waits for a push that
    /// matches, not for any push, and only matching pushes are checked.
    @Test func aFilteredWaitCountsOnlyMatchingPushes() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: P.certs)
        defer { mock.stop() }
        let other = String(repeating: "cd", count: 32)
        let process = try BackgroundProcess(
            P.executable.path, ["check", "--json", "--from", mock.controlURL, "--wait", "1", "--timeout", "60", "--device-token", "CDCD"])
        defer { if process.isRunning { _ = process.terminate(timeout: 5) } }
        #expect(await pollUntil(timeout: .seconds(30)) { mock.capture.pendingWaitCount > 0 }, "\(process.standardError)")
        try await Self.sendHermesPushes(to: mock)
        #expect(process.isRunning, "the wait ended before a matching push: \(process.standardOutput)")
        let key = try ES256PrivateKey(contentsOfFile: "\(P.certs)/AuthKey_ABC123DEFG.p8")
        let token = try JWTSigner(key: key, keyID: "ABC123DEFG").makeProviderToken(teamID: "TEAM000001", issuedAt: Date())
        let client = try Self.client(for: mock.sandboxURL, trust: mock.trustRootsPath)
        let apnsID = UUID().uuidString.lowercased()
        let response = try await client.send(HTTPClientRequest(
            method: "POST", path: "/3/device/\(other)",
            headers: ["authorization": "bearer \(token)", "apns-topic": "com.example.app", "apns-push-type": "alert", "apns-id": apnsID],
            body: Array(#"{"aps":{"alert":"hi"}}"#.utf8)))
        await client.close()
        #expect(response.status == 200)
        let status = try await onThread { process.wait(timeout: 30) }
        #expect(status == 0, "\(process.standardOutput)\(process.standardError)")
        guard case .object(let root)? = try? JSONParser.parse(Array(process.standardOutput.utf8)) else {
            Issue.record("check --json: \(process.standardOutput)")
            return
        }
        #expect(root["pushes"] == 1 && root["wait_satisfied"] == true, "\(process.standardOutput)")

        let byID = try await P.run(["show", "--json", "--from", mock.controlURL, "--apns-id", apnsID.uppercased()])
        guard case .array(let rows)? = try? JSONParser.parse(Array(byID.stdout.utf8)), rows.count == 1 else {
            Issue.record("show --apns-id: \(byID.stdout)\(byID.stderr)")
            return
        }
        #expect(rows[0].value(atKeys: ["device_token"]) == .string(other))
    }

    /// The mock records which answers its fault rules decided, and push-inspect does not
    /// count them against the sender.
    @Test func anAnswerAFaultRuleDecidedIsReportedAsInjected() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: P.certs)
        defer { mock.stop() }
        let control = try Self.client(for: mock.controlURL, trust: nil)
        let added = try await control.send(HTTPClientRequest.control(
            "POST", path: "/faults",
            body: Array(#"{"id":"down","count":1,"action":{"type":"unavailable","reason":"ServiceUnavailable"}}"#.utf8)))
        await control.close()
        #expect(added.status == 201)
        let key = try ES256PrivateKey(contentsOfFile: "\(P.certs)/AuthKey_ABC123DEFG.p8")
        let token = try JWTSigner(key: key, keyID: "ABC123DEFG").makeProviderToken(teamID: "TEAM000001", issuedAt: Date())
        let client = try Self.client(for: mock.sandboxURL, trust: mock.trustRootsPath)
        for _ in 0..<2 {
            _ = try await client.send(HTTPClientRequest(
                method: "POST", path: "/3/device/\(Self.device)",
                headers: ["authorization": "bearer \(token)", "apns-topic": "com.example.app", "apns-push-type": "alert"],
                body: Array(#"{"aps":{"alert":"hi"}}"#.utf8)))
        }
        await client.close()
        #expect(mock.capture.records().map(\.outcome.isInjected) == [true, false])
        let result = try await P.run(["check", "--from", mock.controlURL])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("checked 2 pushes: 2 passed, 0 failed; 1 answer injected by fault rules"), "\(result.stdout)")
        #expect(result.stdout.contains("answered 503 ServiceUnavailable by the mock's fault rules (down: "), "\(result.stdout)")
    }

    /// Each record of the control API's answer is judged on its own, as a capture file's
    /// lines are: a damaged one is an input error, one of a newer version a warning, and the
    /// good ones are checked.
    @Test func eachRecordOfTheAnswerIsJudgedOnItsOwn() async throws {
        let good = P.captureLine(seq: 1, headers: [("apns-topic", "com.example.app"), ("apns-push-type", "alert")],
                                 payload: #"{"aps":{"alert":"x"}}"#)
        let body = #"{"count":3,"pushes":["# + [good, #"{"v":99,"seq":2}"#, #"{"v":2,"seq":0}"#].joined(separator: ",") + "]}"
        let server = try RecordingHTTPServer { _, _ in HTTPResponse(status: 200, text: body, contentType: "application/json") }
        defer { server.stop() }
        let result = try await P.run(["check", "--from", server.baseURL])
        #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("checked 1 push: 1 passed, 0 failed; 1 input error"), "\(result.stdout)")
        #expect(result.stderr.contains("warning: \(server.baseURL): record 2 of the answer skipped: unsupported-version: "), "\(result.stderr)")
        #expect(result.stderr.contains("error: \(server.baseURL): record 3 of the answer: "), "\(result.stderr)")
    }

    /// Ctrl-C ends `--wait` as its timeout would, only sooner: the pushes that arrived are
    /// checked and the wait is reported short, rather than 'cannot reach the control API'
    /// over nothing checked.
    @Test func ctrlCEndsAWaitAndChecksWhatArrived() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: P.certs)
        defer { mock.stop() }
        try await Self.sendHermesPushes(to: mock)
        let process = try BackgroundProcess(
            P.executable.path, ["check", "--profile", "hermes", "--from", mock.controlURL, "--wait", "9", "--timeout", "120"])
        defer { if process.isRunning { _ = process.terminate(timeout: 5) } }
        #expect(await pollUntil(timeout: .seconds(30)) { mock.capture.pendingWaitCount > 0 }, "\(process.standardError)")
        // The wait may begin before SIGINT has its handler.
        #expect(try await onThread { process.waitUntilCatching([SIGINT]) }, "SIGINT never got its handler")
        process.signal(SIGINT)
        let status = try await onThread { process.wait(timeout: 30) }
        #expect(status == 1, "the wait ran short: \(process.standardOutput)\(process.standardError)")
        #expect(process.standardOutput.contains("checked 5 pushes: 4 passed, 1 failed"), "\(process.standardOutput)")
        #expect(process.standardOutput.contains("fewer pushes than --wait asked for"), "\(process.standardOutput)")
        #expect(process.standardError.contains("warning: \(mock.controlURL): interrupted (Ctrl-C) when only 5 of 9 pushes had arrived"),
                "\(process.standardError)")
        #expect(!process.standardError.contains("cannot reach") && !process.standardError.contains("error:"), "\(process.standardError)")
    }

    /// The mock captures `"priority":10` for a push sent without `apns-priority` (APNs' default);
    /// the hermes profile still sees that the header was not sent, in a file and live.
    @Test func aPushWithoutAPNsPriorityFailsHermesThoughTheMockSettledOnTen() async throws {
        let capture = NSTemporaryDirectory() + "push-inspect-live-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: capture) }
        let mock = try MockAPNsServer.startForTesting(certsDirectory: P.certs) { $0.server.captureFilePath = capture }
        defer { mock.stop() }
        try await Self.sendHermesPushes(to: mock, omitting: "apns-priority")
        #expect(mock.capture.records().allSatisfy { $0.priority == .immediately && $0.headers["apns-priority"] == nil })
        mock.capture.flush()

        let fromFile = try await P.run(["check", "--profile", "hermes", "--no-apple", capture])
        let fromMock = try await P.run(["check", "--profile", "hermes", "--no-apple", "--from", mock.controlURL])
        for (name, result) in [("file", fromFile), ("control API", fromMock)] {
            #expect(result.status == 1, "\(name): \(result.stdout)\(result.stderr)")
            #expect(result.stdout.contains("checked 5 pushes: 0 passed, 5 failed"), "\(name): \(result.stdout)")
            #expect(result.stdout.contains("hermes.headers header:apns-priority: apns-priority must be set"), "\(name): \(result.stdout)")
        }
    }

    /// The mock infers `"push_type":"alert"` for a push sent without `apns-push-type` (and
    /// lints it); apple and hermes still see that the header was not sent, in a file and live.
    @Test func aPushWithoutAPNsPushTypeFailsThoughTheMockInferredOne() async throws {
        let capture = NSTemporaryDirectory() + "push-inspect-live-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: capture) }
        let mock = try MockAPNsServer.startForTesting(certsDirectory: P.certs) { $0.server.captureFilePath = capture }
        defer { mock.stop() }
        try await Self.sendHermesPushes(to: mock, omitting: "apns-push-type")
        #expect(mock.capture.records().allSatisfy { $0.pushType == .alert && $0.headers["apns-push-type"] == nil })
        mock.capture.flush()

        let fromFile = try await P.run(["check", "--profile", "hermes", capture])
        let fromMock = try await P.run(["check", "--profile", "hermes", "--from", mock.controlURL])
        for (name, result) in [("file", fromFile), ("control API", fromMock)] {
            #expect(result.status == 1, "\(name): \(result.stdout)\(result.stderr)")
            #expect(result.stdout.contains("checked 5 pushes: 0 passed, 5 failed"), "\(name): \(result.stdout)")
            #expect(result.stdout.contains("apple.push-type: 5"), "\(name): \(result.stdout)")
            #expect(result.stdout.contains("hermes.headers header:apns-push-type: apns-push-type must be alert"), "\(name): \(result.stdout)")
        }
    }
}
