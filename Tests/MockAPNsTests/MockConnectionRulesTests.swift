import APNsCore
import Foundation
import HTTPTransport
import MockAPNs
import PushTestSupport
import Testing

/// APNs' own connection rules as the mock keeps them (docs/fidelity.md, "Connections"),
/// seen by python's `h2`: the error budget per connection, off by default, and shutdown's
/// GOAWAY `{"reason":"Shutdown"}` with every push in flight answered.
@Suite(.timeLimit(.minutes(2)))
struct MockConnectionRulesTests {
    static let goneDevice = String(repeating: "cd", count: 32)

    static func h2cMock(configure: (inout MockConfiguration) -> Void = { _ in }) throws -> MockAPNsServer {
        let gone = try #require(DeviceToken(goneDevice))
        return try MockAPNsServer.startForTesting(certsDirectory: Acceptance.certs) {
            $0.server.tlsEnabled = false
            $0.registry.devices[gone] = RegisteredDevice(
                token: gone, bundleID: Acceptance.topic, environment: .production,
                state: .unregistered(since: Date(timeIntervalSince1970: 1_700_000_000)))
            configure(&$0)
        }
    }

    /// Three pushes one after another: a malformed device token (400), a device gone (410),
    /// a malformed token again (400); then reads until the mock closes or 3 s pass.
    static func threeRejections(to mock: MockAPNsServer) async throws -> AcceptancePython.Report {
        let script = #"""
port, token, gone = int(sys.argv[1]), sys.argv[2], sys.argv[3]
c = connect(port)
for sid, dev in ((1, "not-a-token"), (3, gone), (5, "not-a-token")):
    c.send(sid, push_headers(dev, token), PAYLOAD)
    c.pump(lambda c: c.ended(sid) or c.goaways(), timeout=10)
c.pump(lambda c: False, timeout=3)
c.report()
"""#
        let port = String(Acceptance.address(of: mock.productionURL).port)
        return try await AcceptancePython.run(script, [port, try Acceptance.providerToken(), goneDevice])
    }

    @Test func theErrorBudgetEndsTheConnectionWithTheReasonThatUsedItUpAnd410DoesNotCount() async throws {
        let mock = try Self.h2cMock { $0.server.connectionErrorBudget = 2 }
        defer { mock.stop() }

        let report = try await Self.threeRejections(to: mock)

        #expect([1, 3, 5].map { id in report.responses.first { $0.stream == id }?.status } == [400, 410, 400],
                "\(report.responses.map { ($0.stream, $0.status) })")
        let goAway = try #require(report.goaways.first, "no GOAWAY: \(report)")
        #expect(goAway.debug == #"{"reason":"BadDeviceToken"}"#)
        #expect(goAway.error == 0)
        #expect(goAway.last_stream == 5)
        // After the answer that used the budget up, never before it.
        let answered = try #require(report.responses.first { $0.stream == 5 }?.ended)
        #expect(goAway.at >= answered)
        #expect(report.goaways.count == 1)
        #expect(report.closed_at != nil)
        // The capture says the push that used the budget up ended the connection.
        let outcomes = mock.capture.records().map(\.outcome)
        #expect(outcomes.map(\.status) == [400, 410, 400])
        #expect(outcomes.map(\.connectionAction) == [.none, .none, .goAway])
    }

    @Test func withoutABudgetRejectionsLeaveTheConnectionOpen() async throws {
        let mock = try Self.h2cMock()
        defer { mock.stop() }

        let report = try await Self.threeRejections(to: mock)

        #expect([1, 3, 5].map { id in report.responses.first { $0.stream == id }?.status } == [400, 410, 400])
        #expect(report.goaways.isEmpty)
        #expect(report.closed_at == nil)
    }

    /// A push held by a delay rule when the mock stops: the connection gets GOAWAY
    /// `{"reason":"Shutdown"}` at once, and the push, still unanswered when the grace period
    /// ends, is answered 503 `{"reason":"Shutdown"}` rather than cut off.
    @Test func shutdownSendsGOAWAYShutdownAndAnswersEveryPushInFlight() async throws {
        let mock = try Self.h2cMock {
            $0.faults = [FaultRule(id: "hold", action: .delay(.seconds(60)))]
        }
        // Raw frames: python's h2 takes the connection as closed at GOAWAY and drops the
        // answer that follows it.
        let script = MockAcceptanceConnectionTests.helpers + "\n" + #"""
port, token, dev = int(sys.argv[1]), sys.argv[2], sys.argv[3]
c = connect(port)
c.send(1, push_headers(dev, token), PAYLOAD)
frames = c.read_frames(timeout=30)
print(json.dumps({"frames": frame_log(frames), "closed_at": c.closed_at}))
"""#
        let port = String(Acceptance.address(of: mock.productionURL).port)
        async let running = AcceptancePython.run(
            script, [port, try Acceptance.providerToken(), Acceptance.deviceToken], as: MockAcceptanceConnectionTests.FrameReport.self)
        #expect(await pollUntil { mock.transportMetrics.openStreams == 1 }, "the push never arrived")
        try await onThread { mock.stop(gracePeriod: .milliseconds(500)) }
        let report = try await running

        let goAway = try #require(report.index("GoAwayFrame"), "no GOAWAY: \(report.frames)")
        #expect(report.frames[goAway].debug == #"{"reason":"Shutdown"}"#)
        #expect(report.frames[goAway].error == 0)
        let answer = try #require(report.index("HeadersFrame", stream: 1), "stream 1 unanswered: \(report.frames)")
        #expect(report.frames[answer].status == "503")
        #expect(report.body(1) == #"{"reason":"Shutdown"}"#)
        #expect(goAway < answer)
        #expect(report.index("RstStreamFrame", stream: 1) == nil)
        #expect(report.closed_at != nil)
    }

    /// `max_connections` per listener: the connection past it is closed at once, counted,
    /// and a new one is served once another has closed.
    @Test func theConnectionPastMaxConnectionsIsRefusedCleanly() async throws {
        let mock = try Self.h2cMock { $0.server.maxConnections = 2 }
        defer { mock.stop() }
        func client() throws -> HTTP2Client {
            try Acceptance.client(for: mock.productionURL, trust: nil)
        }
        let first = try client(), second = try client(), third = try client()
        try await first.connect()
        try await second.connect()
        #expect(await pollUntil { mock.transportMetrics.openConnections == 2 })
        let refused = await outcomeOfConnect(third)
        #expect(refused != nil, "the third connection was served")
        #expect(mock.transportMetrics.rejectedConnections == 1)
        await first.close()
        #expect(await pollUntil { mock.transportMetrics.openConnections == 1 })
        let fourth = try client()
        let response = try await fourth.send(Acceptance.push(token: try Acceptance.providerToken()))
        #expect(response.status == 200)
        for client in [second, third, fourth] { await client.close() }
    }

    private func outcomeOfConnect(_ client: HTTP2Client) async -> HTTPClientError? {
        do {
            try await client.connect()
            // Closed right after accept: the connect may complete before the close is seen.
            _ = try await client.ping()
            return nil
        } catch {
            return error
        }
    }
}
