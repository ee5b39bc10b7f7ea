import APNsCore
import Foundation
import HTTPTransport
import HermesContract
import MockAPNs
import PushGateway
import Testing

/// The gateway end to end: plugin request in, the real APNsClient out to a real mock APNs
/// over TLS, the mock's capture and fault rules as the witness.
@Suite(.timeLimit(.minutes(2)))
struct GatewayAgainstMockTests {
    /// The headers contract §3 lets the gateway send, and nothing else.
    static let allowedHeaders: Set<String> = [
        "authorization", "apns-push-type", "apns-priority", "apns-topic", "apns-id", "apns-expiration", "apns-collapse-id",
        "content-type", "content-length",
    ]

    @Test(arguments: HermesPushType.allCases)
    func theCapturedAPNsRequestIsExactlyContractSection3(type: HermesPushType) async throws {
        let running = try MockGateway.start()
        let client = try GatewayFixture.client(for: running.gateway.url)
        let before = Int64(Date().timeIntervalSince1970)
        var headers: HTTPHeaders = ["content-type": "application/json", "user-agent": "hermes-push-plugin/1.0 (test)",
                                    "apns-topic": "com.evil.app", "apns-priority": "5", "x-forwarded-for": "10.0.0.1"]
        headers.add(name: "apns-collapse-id", value: "injected")
        let body = try GatewayFixture.pushRequest(type: type, environment: .production, session: "20261130_154126_a1b2c3").encodedBody()
        let response = try await client.send(HTTPClientRequest(method: "POST", path: "/push", headers: headers, body: body))
        await client.close()
        let after = Int64(Date().timeIntervalSince1970)

        #expect(response.status == 200, "\(response.text)")
        let captured = await running.mock.capture.wait(for: .all, count: 1, timeout: .seconds(10))
        await running.stop()
        let record = try #require(captured.records.first)
        #expect(captured.records.count == 1)
        #expect(response.text == #"{"apns_id":"\#(record.headers["apns-id"] ?? "?")"}"#)
        #expect(record.environment == .production)
        #expect(record.outcome.status == 200)
        #expect(record.method == "POST" && record.path == "/3/device/\(GatewayFixture.deviceToken)")
        #expect(record.headers["apns-push-type"] == "alert")
        #expect(record.headers["apns-priority"] == "10")
        #expect(record.headers["apns-topic"] == GatewayFixture.topic)
        #expect(record.headers.values(for: "apns-topic").count == 1)
        #expect(record.headers["apns-id"].map(APNsIDGenerator.isCanonicalUUID) == true)
        #expect(record.headers["apns-collapse-id"] == "\(type.rawValue):20261130_154126_a1b2c3")
        let expiration = try #require(record.headers["apns-expiration"].flatMap { Int64($0) })
        #expect((before + type.expirationInterval...after + type.expirationInterval).contains(expiration))
        let names = Set(record.headers.map { $0.name.lowercased() })
        #expect(names.isSubset(of: Self.allowedHeaders), "unexpected headers: \(names.subtracting(Self.allowedHeaders))")
        #expect(record.keyID == "ABC123DEFG" && record.teamID == "TEAM000001")
        let expected = HermesNotification(type: type, sessionID: "20261130_154126_a1b2c3").payload()
        #expect(record.payload == expected, "\(String(decoding: record.payload, as: UTF8.self))")
        #expect(record.lintWarnings.isEmpty, "\(record.lintWarnings)")
    }

    @Test func unauthorizedRequestsNeverReachTheMock() async throws {
        let running = try MockGateway.start(modes: [.hmac])
        let client = try GatewayFixture.client(for: running.gateway.url)
        var tampered = try GatewayFixture.pushRequest()
        tampered.sessionID = "sess-2"
        tampered.threadID = "sess-2"
        var missing = try GatewayFixture.pushRequest()
        missing.hmac = nil
        let capability = try GatewayFixture.pushRequest(capability: "v1.anything")
        var statuses: [Int] = []
        for body in [tampered.encodedBody(), missing.encodedBody(), capability.encodedBody()] {
            statuses.append(try await client.send(GatewayFixture.post("/push", body)).status)
        }
        // A valid push afterwards proves the path to the mock worked all along.
        let valid = try await client.send(GatewayFixture.post("/push", try GatewayFixture.pushRequest().encodedBody()))
        await client.close()
        let captured = await running.mock.capture.wait(for: .all, count: 1, timeout: .seconds(10))
        await running.stop()
        #expect(statuses == [403, 403, 403])
        #expect(valid.status == 200)
        #expect(running.mock.capture.count == 1, "only the authorized push reached APNs")
        #expect(captured.records.first.map { HermesNotification(payload: $0.payload)?.sessionID } == "sess-1")
    }

    @Test(arguments: [
        (APNsReason.unregistered, 410, "device_token_inactive"),
        (.expiredToken, 410, "device_token_inactive"),
        (.badDeviceToken, 400, "device_token_rejected"),
        (.deviceTokenNotForTopic, 400, "device_token_rejected"),
        (.badTopic, 502, "apns_rejected"),
        (.forbidden, 502, "apns_rejected"),
    ])
    func finalAPNsRejectionsMapOnceWithoutRetry(reason: APNsReason, status: Int, code: String) async throws {
        let running = try MockGateway.start()
        try running.mock.faults.add(FaultRule(id: "reject", action: .status(reason.status ?? 400, reason: reason)))
        let client = try GatewayFixture.client(for: running.gateway.url)
        let response = try await client.send(GatewayFixture.post("/push", try GatewayFixture.pushRequest().encodedBody()))
        await client.close()
        _ = await running.mock.capture.wait(for: .all, count: 1, timeout: .seconds(10))
        try await Task.sleep(for: .milliseconds(100))
        await running.stop()
        #expect(response.status == status)
        #expect(response.errorCode == code, "\(response.text)")
        #expect(running.mock.capture.count == 1, "\(reason) is final: no retry")
    }

    @Test(arguments: [
        (APNsReason.internalServerError, 500, 503, "apns_unavailable"),
        (.serviceUnavailable, 503, 503, "apns_unavailable"),
        (.tooManyRequests, 429, 429, "rate_limited"),
    ])
    func retryableAnswersAreRetriedBoundedWithOneAPNsID(reason: APNsReason, apnsStatus: Int, status: Int, code: String) async throws {
        let running = try MockGateway.start { $0.apnsAttempts = 3 }
        try running.mock.faults.add(FaultRule(id: "fail", action: .status(apnsStatus, reason: reason)))
        let client = try GatewayFixture.client(for: running.gateway.url)
        let response = try await client.send(GatewayFixture.post("/push", try GatewayFixture.pushRequest().encodedBody()))
        await client.close()
        let captured = await running.mock.capture.wait(for: .all, count: 3, timeout: .seconds(10))
        await running.stop()
        #expect(response.status == status)
        #expect(response.errorCode == code, "\(response.text)")
        #expect(captured.records.count == 3, "three attempts, no more")
        #expect(Set(captured.records.compactMap { $0.headers["apns-id"] }).count == 1, "every attempt carries the same apns-id")
    }

    @Test func aTransientFailureThenSuccessAnswers200AndDeliversOnce() async throws {
        let running = try MockGateway.start()
        try running.mock.faults.add(FaultRule(id: "blip", count: 1, action: .status(503, reason: .serviceUnavailable)))
        let client = try GatewayFixture.client(for: running.gateway.url)
        let response = try await client.send(GatewayFixture.post("/push", try GatewayFixture.pushRequest().encodedBody()))
        await client.close()
        let captured = await running.mock.capture.wait(for: .all, count: 2, timeout: .seconds(10))
        await running.stop()
        #expect(response.status == 200, "\(response.text)")
        let ids = captured.records.compactMap { $0.headers["apns-id"] }
        #expect(ids.count == 2 && Set(ids).count == 1)
        #expect(captured.records.filter { $0.outcome.status == 200 }.count == 1, "delivered once")
        #expect(response.text.contains(ids[0]))
    }

    @Test func eachEventLoopForwardsOnItsOwnAPNsConnection() async throws {
        let running = try MockGateway.start {
            $0.eventLoopThreads = 2
            $0.perDeviceRateLimit = GatewayRateLimit(burst: 100, perSecond: 100) // 12 pushes to one device
        }
        // The gateway deals incoming connections out to its loops in turn: opened one after
        // the other, the first two land on different loops.
        var clients: [HTTP2Client] = []
        for session in ["s0", "s1"] {
            let client = try GatewayFixture.client(for: running.gateway.url)
            let body = try GatewayFixture.pushRequest(session: session).encodedBody()
            #expect(try await client.send(GatewayFixture.post("/push", body)).status == 200)
            clients.append(client)
        }
        // Then both at once, several pushes each.
        let statuses = try await withThrowingTaskGroup(of: [Int].self) { group in
            for (index, client) in clients.enumerated() {
                group.addTask {
                    var statuses: [Int] = []
                    for round in 0..<5 {
                        let body = try GatewayFixture.pushRequest(session: "c\(index)r\(round)").encodedBody()
                        statuses.append(try await client.send(GatewayFixture.post("/push", body)).status)
                    }
                    return statuses
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        for client in clients { await client.close() }
        let captured = await running.mock.capture.wait(for: .all, count: 12, timeout: .seconds(10))
        await running.stop()
        #expect(statuses.count == 10 && statuses.allSatisfy { $0 == 200 })
        #expect(captured.records.count == 12 && captured.records.allSatisfy { $0.outcome.status == 200 })
        // One APNs connection per loop, each carrying the pushes of the requests on its loop:
        // a push never waits for another thread to send it.
        let byConnection = Dictionary(grouping: captured.records, by: \.connectionID)
        #expect(byConnection.count == 2, "connections: \(byConnection.mapValues(\.count))")
        #expect(byConnection.values.allSatisfy { $0.count == 6 }, "\(byConnection.mapValues(\.count))")
    }

    @Test func aSlowAPNsIsAnswered503BeforeThePluginGivesUp() async throws {
        // Within the plugin's 5 s, and long enough for the first push's handshake on a
        // loaded machine: the bound covers that push too.
        let running = try MockGateway.start { $0.apnsTimeout = .seconds(3) }
        let client = try GatewayFixture.client(for: running.gateway.url)
        // A connection to APNs first: the bound then meets a slow answer, not a handshake.
        #expect(try await client.send(GatewayFixture.post("/push", try GatewayFixture.pushRequest().encodedBody())).status == 200)
        try running.mock.faults.add(FaultRule(id: "slow", action: .delay(.seconds(300))))

        let started = ContinuousClock.now
        let response = try await client.send(
            GatewayFixture.post("/push", try GatewayFixture.pushRequest(session: "sess-2").encodedBody()))
        let took = started.duration(to: .now)
        await client.close()
        await running.stop()
        #expect(response.status == 503 && response.errorCode == "apns_unavailable", "\(response.text)")
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.headers["server-timing"] != nil, "it went to APNs")
        // Generous above (a loaded machine runs timers late), and still far from the 300 s delay.
        #expect(took >= .milliseconds(2950) && took < .seconds(40), "answered after \(took), not after APNs' 300 s")
        #expect(running.log.recorded.contains { $0.contains("gateway.status=503") && $0.contains("send timeout") })
    }

    @Test func anUnreachableAPNsAnswers503() async throws {
        let running = try MockGateway.start { $0.sandboxURL = "https://127.0.0.1:1" }
        let client = try GatewayFixture.client(for: running.gateway.url)
        let response = try await client.send(GatewayFixture.post("/push", try GatewayFixture.pushRequest().encodedBody()))
        await client.close()
        await running.stop()
        #expect(response.status == 503 && response.errorCode == "apns_unavailable", "\(response.text)")
    }
}
