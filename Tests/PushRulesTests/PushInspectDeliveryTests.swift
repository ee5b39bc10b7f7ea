import APNsCore
import Foundation
import HTTPTransport
import HermesContract
import JWTVerify
import MockAPNs
import PushTestSupport
import Testing

/// `push-inspect delivery` over a capture file with pushes and delivery events, and
/// `check` skipping the delivery events without a warning.
@Suite(.timeLimit(.minutes(2)))
struct PushInspectDeliveryTests {
    typealias P = PushInspectProcess
    static let token = String(repeating: "ab", count: 32)

    static func event(seq: Int, id: String, state: String, why: String? = nil, by: String? = nil) -> String {
        var line = #"{"v":2,"seq":\#(seq),"kind":"delivery","time":"2026-12-04T10:00:\#(String(format: "%02d", seq)).000000Z","apns_id":"\#(id)","device_token":"\#(token)","topic":"com.example.app","state":"\#(state)""#
        if let why { line += #","why":"\#(why)""# }
        if let by { line += #","by":"\#(by)""# }
        return line + "}"
    }

    static func file() throws -> String {
        try P.file([
            P.hermesLine(seq: 1, type: .approval),
            event(seq: 2, id: "a", state: "stored", why: "offline"),
            P.hermesLine(seq: 3, type: .complete),
            event(seq: 4, id: "a", state: "discarded", why: "coalesced", by: "b"),
            event(seq: 5, id: "b", state: "stored", why: "offline"),
            event(seq: 6, id: "b", state: "delivered"),
        ].joined(separator: "\n") + "\n")
    }

    @Test func printsEachPushsFateAndFiltersByID() async throws {
        let file = try Self.file()
        let all = try await P.run(["delivery", file])
        #expect(all.status == 0, "\(all.stderr)")
        let rows = all.stdout.split(separator: "\n").dropFirst()
        #expect(rows.count == 4)
        #expect(rows[rows.startIndex + 1].contains("discarded  coalesced  b"))
        let one = try await P.run(["delivery", "--apns-id", "b", "--json", file])
        #expect(one.status == 0)
        #expect(one.stdout.split(separator: "\n").count == 2 && one.stdout.contains(#""state":"delivered""#))
        #expect(try await P.run(["delivery", "--apns-id", "nope", file]).status == 1, "nothing matched")
    }

    @Test func usageErrorsExitTwoAndHelpExitsZero() async throws {
        let noFile = try await P.run(["delivery"])
        #expect(noFile.status == 2 && noFile.stderr.contains("Error: name a capture file, or give --from URL"))
        #expect(try await P.run(["delivery", "--device-token", "xyz", try Self.file()]).status == 2)
        #expect(try await P.run(["delivery", "/nonexistent/pushes.jsonl"]).status == 2)
        let help = try await P.run(["delivery", "--help"])
        #expect(help.status == 0 && help.stdout.contains("USAGE: push-inspect delivery"))
        #expect(try await P.run(["help", "delivery"]).status == 0)
    }

    @Test func checkSkipsDeliveryEventsWithoutAWarning() async throws {
        let result = try await P.run(["check", "--profile", "hermes", try Self.file()])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("checked 2 pushes"))
        #expect(!result.stderr.contains("skipped"))
    }

    // MARK: --from: a running mock's delivery log

    /// Sends two alerts to the sandbox listener; returns their `apns-id`s.
    static func sendTwo(to mock: MockAPNsServer) async throws -> [String] {
        let key = try ES256PrivateKey(contentsOfFile: "\(P.certs)/AuthKey_ABC123DEFG.p8")
        let bearer = try JWTSigner(key: key, keyID: "ABC123DEFG").makeProviderToken(teamID: "TEAM000001", issuedAt: Date())
        let client = try PushInspectLiveMockTests.client(for: mock.sandboxURL, trust: mock.trustRootsPath)
        var ids: [String] = []
        for title in ["approve", "done"] {
            let response = try await client.send(HTTPClientRequest(method: "POST", path: "/3/device/\(token)", headers: [
                "authorization": "bearer \(bearer)", "apns-topic": "com.example.app", "apns-push-type": "alert",
            ], body: Array(#"{"aps":{"alert":"\#(title)"}}"#.utf8)))
            #expect(response.status == 200)
            ids.append(try #require(response.headers["apns-id"]))
        }
        await client.close()
        return ids
    }

    /// Two pushes to an offline device, read back from the mock's control API: the same table
    /// as from a file (no sequence numbers: `-`), by device and by apns-id, and as JSON lines.
    @Test func readsARunningMocksDeliveryLog() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: P.certs) { $0.delivery.enabled = true }
        defer { mock.stop() }
        let device = try #require(DeviceToken(Self.token))
        mock.delivery.setConnectivity(.offline, for: device)
        let ids = try await Self.sendTwo(to: mock)

        let byDevice = try await P.run(["delivery", "--from", mock.controlURL, "--device-token", Self.token])
        #expect(byDevice.status == 0, "\(byDevice.stderr)")
        let lines = byDevice.stdout.split(separator: "\n")
        #expect(lines.first == "SEQ  TIME  APNS-ID  TOKEN  STATE  WHY  BY")
        let rows = lines.dropFirst().map { $0.split(separator: "  ").map(String.init) }
        #expect(rows.map { [$0[0], $0[2], $0[4], $0[5], $0[6]] } == [
            ["-", ids[0], "stored", "offline", "-"],
            ["-", ids[0], "discarded", "coalesced", ids[1]],
            ["-", ids[1], "stored", "offline", "-"],
        ], "\(byDevice.stdout)")
        #expect(rows.allSatisfy { $0[3] == device.masked })

        mock.delivery.setConnectivity(.online, for: device)
        let one = try await P.run(["delivery", "--from", mock.controlURL, "--apns-id", ids[1], "--json"])
        #expect(one.status == 0, "\(one.stderr)")
        let json = one.stdout.split(separator: "\n")
        #expect(json.count == 2 && json.last?.contains(#""state":"delivered""#) == true, "\(one.stdout)")
        #expect(json.allSatisfy { $0.hasPrefix(#"{"v":2,"kind":"delivery","#) && !$0.contains(#""seq""#) }, "\(one.stdout)")

        let none = try await P.run(["delivery", "--from", mock.controlURL, "--apns-id", "00000000-0000-0000-0000-000000000000"])
        #expect(none.status == 1, "nothing matched: \(none.stdout)\(none.stderr)")
    }

    @Test func fromUsageErrorsAndAnUnreachableOrModellessMockExitTwo() async throws {
        let both = try await P.run(["delivery", "--from", "http://127.0.0.1:1", "--apns-id", "a", try Self.file()])
        #expect(both.status == 2 && both.stderr.contains("Error: give capture files or --from URL, not both"), "\(both.stderr)")
        let noLookup = try await P.run(["delivery", "--from", "http://127.0.0.1:1"])
        #expect(noLookup.status == 2 && noLookup.stderr.contains("--from needs --apns-id, --unique-id or --device-token"))
        let endpoint = try await P.run(["delivery", "--from", "http://127.0.0.1:1/delivery", "--apns-id", "a"])
        #expect(endpoint.status == 2 && endpoint.stderr.contains("drop '/delivery'"), "\(endpoint.stderr)")
        #expect(try await P.run(["delivery", "--from", "ftp://x", "--apns-id", "a"]).status == 2)
        let unreachable = try await P.run(["delivery", "--from", "http://127.0.0.1:1", "--apns-id", "a"])
        #expect(unreachable.status == 2 && unreachable.stderr.contains("cannot reach the control API"), "\(unreachable.stderr)")

        let mock = try MockAPNsServer.startForTesting(certsDirectory: P.certs)
        defer { mock.stop() }
        let off = try await P.run(["delivery", "--from", mock.controlURL, "--apns-id", "a"])
        #expect(off.status == 2 && off.stderr.contains("answered 409") && off.stderr.contains("--delivery"), "\(off.stderr)")
    }
}
