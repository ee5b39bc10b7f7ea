import APNsCore
import Foundation
import HTTPTransport
import MockAPNs
import PushTestSupport
import Testing

/// The 10,000-channel limit, a channel deleted while a broadcast is held, and where channel
/// operations and broadcasts show: the capture file, the control API, fault rules, `/metrics`.
@Suite struct ChannelObservationTests {
    static let app = Acceptance.topic
    static let createBody = #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#

    static func control(_ mock: MockAPNsServer, _ method: String, _ path: String, body: String = "") async throws -> HTTPClientResponse {
        let client = try Acceptance.client(for: mock.controlURL, trust: nil)
        defer { Task { await client.close() } }
        return try await client.send(HTTPClientRequest(method: method, path: path, headers: ["content-type": "application/json"],
                                                       body: Array(body.utf8)))
    }

    @Test func theTenThousandAndFirstChannelIsRefusedPerEnvironment() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Acceptance.certs)
        defer { mock.stop() }
        for _ in 0..<(ChannelStore.maximumChannelsPerEnvironment - 1) {
            try mock.channels.create(bundleID: Self.app, environment: .sandbox, storagePolicy: .noMessageStored)
        }
        // The 10,000th and the 10,001st over the wire; then production still has room.
        let token = try Acceptance.providerToken()
        let create = BroadcastReasonTests.channel("create", "POST", token: token, body: Self.createBody)
        let answers = try await ChannelWire.sendWithOurClient([create, create], environment: .sandbox, to: mock)
        #expect(answers.map(\.status) == [201, 400])
        #expect(answers.last?.reason == "CannotCreateChannelConfig")
        #expect(mock.channels.count(environment: .sandbox) == 10_000)
        let python = try await ChannelWire.sendWithPython([create], environment: .sandbox, to: mock)
        #expect(python.first?.reason == "CannotCreateChannelConfig")
        let production = try await ChannelWire.sendWithOurClient([create], environment: .production, to: mock)
        #expect(production.first?.status == 201)
        // The control API says the same, in its own terms.
        let refused = try await Self.control(mock, "POST", "/channels", body: #"{"bundle_id":"com.example.app","environment":"sandbox"}"#)
        #expect(refused.status == 409)
    }

    @Test func aChannelDeletedWhileABroadcastIsHeldAnswersTheBroadcastAsDecided() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Acceptance.certs)
        defer { mock.stop() }
        let channel = try mock.channels.create(bundleID: Self.app, environment: .sandbox, storagePolicy: .mostRecentMessageStored)
        try mock.faults.add(FaultRule(id: "hold", match: FaultMatch(channelID: channel.id), action: .delay(.milliseconds(600))))
        let token = try Acceptance.providerToken()
        let send = BroadcastReasonTests.broadcast("send", channel: channel.id, token: token)
        async let held = ChannelWire.sendWithOurClient([send], environment: .sandbox, to: mock)
        // Deleted through the control API while the broadcast waits for its answer, once it is
        // decided (counted).
        try #require(await pollUntil { mock.channelEvents.broadcastCount > 0 }, "the broadcast was never decided")
        let encoded = channel.id.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let deleted = try await Self.control(mock, "DELETE", "/channels/\(encoded)?environment=sandbox")
        #expect(deleted.status == 204)
        let answer = try await held
        #expect(answer.first?.status == 200, "decided when it arrived, before the deletion")
        let after = try await ChannelWire.sendWithOurClient([send], environment: .sandbox, to: mock)
        #expect(after.first?.reason == "ChannelNotRegistered")
        let again = try await Self.control(mock, "DELETE", "/channels/\(encoded)")
        #expect(again.status == 404)
    }

    /// A 10 MB create body, sent as fast as flow control lets it, is 413 `PayloadTooLarge`;
    /// the connection keeps serving.
    @Test func aTenMegabyteCreateBodyIsPayloadTooLargeAndTheConnectionServesOn() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Acceptance.certs)
        defer { mock.stop() }
        let script = #"""
port, cafile, token = int(sys.argv[1]), sys.argv[2], sys.argv[3]
c = connect(port, tls=True, cafile=cafile)
base = [(":method", "POST"), (":scheme", "https"), (":path", "/1/apps/com.example.app/channels"), (":authority", "localhost"),
        ("authorization", "bearer " + token)]
c.conn.send_headers(1, base)
c.sock.sendall(c.conn.data_to_send())
data, offset = b" " * (10 * 1024 * 1024), 0
while offset < len(data) and not c.ended(1):
    window = min(c.conn.local_flow_control_window(1), c.conn.max_outbound_frame_size)
    if window <= 0:
        c.pump(lambda c: c.conn.local_flow_control_window(1) > 0 or c.ended(1), timeout=2)
        continue
    try:
        c.conn.send_data(1, data[offset:offset + window], end_stream=offset + window >= len(data))
        c.sock.sendall(c.conn.data_to_send())
    except (h2.exceptions.StreamClosedError, OSError):
        break
    offset += window
c.pump(lambda c: c.ended(1))
c.send(3, [(":method", "GET"), (":scheme", "https"), (":path", "/1/apps/com.example.app/all-channels"), (":authority", "localhost"),
          ("authorization", "bearer " + token)])
c.pump(lambda c: c.ended(3))
c.report()
"""#
        let report = try await AcceptancePython.run(
            script, [String(Acceptance.address(of: mock.channelSandboxURL).port), mock.trustRootsPath ?? "", try Acceptance.providerToken()])
        let byStream = Dictionary(report.responses.map { ($0.stream, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(byStream[1]?.status == 413 && byStream[1]?.body == #"{"reason":"PayloadTooLarge"}"#, "\(report)")
        #expect(byStream[3]?.status == 200 && byStream[3]?.body == #"{"channels":[]}"#, "\(report)")
        #expect(mock.channels.count(environment: .sandbox) == 0)
    }

    @Test func captureControlAPIFaultsAndMetricsShowChannelsAndBroadcasts() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("channels-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("capture.jsonl").path
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Acceptance.certs) { $0.server.captureFilePath = file }
        defer { mock.stop() }
        let token = try Acceptance.providerToken()

        // Created through the control API, used over the wire.
        let created = try await Self.control(mock, "POST", "/channels",
                                             body: #"{"bundle_id":"com.example.app","environment":"production","message_storage_policy":0}"#)
        #expect(created.status == 201)
        let createdJSON = try JSONSerialization.jsonObject(with: Data(created.body)) as? [String: Any]
        let id = try #require(createdJSON?["channel_id"] as? String)
        #expect(createdJSON?["message_storage_policy"] as? Int == 0 && createdJSON?["environment"] as? String == "production")
        let listed = try await Self.control(mock, "GET", "/channels?environment=production")
        let listing = try JSONSerialization.jsonObject(with: Data(listed.body)) as? [String: Any]
        #expect((listing?["channels"] as? [[String: Any]])?.compactMap { $0["channel_id"] as? String } == [id])
        let sandboxListing = try await Self.control(mock, "GET", "/channels?environment=sandbox")
        #expect(String(decoding: sandboxListing.body, as: UTF8.self).contains(#""count":0"#))
        let badQuery = try await Self.control(mock, "GET", "/channels?environment=moon")
        #expect(badQuery.status == 400)

        // A fault rule matching the channel answers its broadcasts, and only its.
        let other = try mock.channels.create(bundleID: Self.app, environment: .production, storagePolicy: .noMessageStored)
        let rule = try await Self.control(mock, "POST", "/faults",
                                          body: #"{"id":"down","match":{"channel_id":"\#(id)"},"action":{"type":"status","status":503,"reason":"ServiceUnavailable"}}"#)
        #expect(rule.status == 201)
        let read = BroadcastReasonTests.channel("read", "GET", token: token, headers: [("apns-channel-id", id)])
        let answers = try await ChannelWire.sendWithOurClient(
            [read, BroadcastReasonTests.broadcast("to it", channel: id, token: token),
             BroadcastReasonTests.broadcast("to the other", channel: other.id, token: token)],
            environment: .production, to: mock)
        #expect(answers.map(\.status) == [200, 503, 200])

        // The capture: the broadcasts as pushes with channel_id and request_id, the read as a
        // "channel" line that the push reader skips without a warning, as a kind it knows.
        let broadcasts = mock.capture.records().filter { $0.path.hasPrefix("/4/broadcasts/") }
        #expect(broadcasts.map(\.channelID) == [id, other.id])
        #expect(broadcasts.allSatisfy { $0.outcome.requestID?.count == 36 })
        mock.capture.flush()
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
        let channelLines = lines.filter { $0.contains(#""kind":"channel""#) }
        #expect(channelLines.count == 1)
        #expect(channelLines.first?.contains(#""operation":"read""#) == true && channelLines.first?.contains(id) == true)
        var warnings: [CaptureReadWarning] = []
        let reader = try CaptureFileReader(path: file) { warnings.append($0) }
        var readRecords: [CaptureRecord] = []
        while let record = try reader.next() { readRecords.append(record) }
        #expect(readRecords.map(\.channelID) == [id, other.id])
        #expect(warnings.isEmpty && reader.otherKindLineCount == 1, "\(warnings)")
        let sequences = lines.compactMap { line -> Int? in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["seq"] as? Int
        }
        #expect(sequences == Array(1...sequences.count), "one sequence for every line of the file")

        // The control API's recent operations, and /metrics.
        let operations = try await Self.control(mock, "GET", "/channels/operations")
        #expect(String(decoding: operations.body, as: UTF8.self).contains(#""operation":"read""#))
        let metrics = String(decoding: try await Self.control(mock, "GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains(#"apns_mock_broadcasts_total{environment="production",status="200",reason=""} 1"#))
        #expect(metrics.contains(#"apns_mock_broadcasts_total{environment="production",status="503",reason="ServiceUnavailable"} 1"#))
        #expect(metrics.contains(#"apns_mock_channel_requests_total{environment="production",operation="read",status="200",reason=""} 1"#))
        // FeatureNotEnabled through the control API.
        let quiet = try await Self.control(mock, "PUT", "/channels/broadcast-disabled-apps", body: #"{"bundle_ids":["com.example.app"]}"#)
        #expect(quiet.status == 200 && !mock.channels.isBroadcastEnabled(for: Self.app))
        let refused = try await ChannelWire.sendWithOurClient([read], environment: .production, to: mock)
        #expect(refused.first?.reason == "FeatureNotEnabled")
    }
}
