import Foundation
import HTTPTransport
import HermesAgent
import HermesContract
import JWTVerify
import PushTestSupport
import StrictJSON
import Testing

/// The sender against a fake gateway on HTTPTransport's HTTPServer, over real HTTP/1.1.
@Suite(.timeLimit(.minutes(1))) struct HermesGatewaySenderTests {
    private static func json(_ status: Int, _ body: String) -> HTTPResponse {
        HTTPResponse(status: status, text: body, contentType: "application/json")
    }

    private static func error(_ code: HermesGatewayErrorCode) -> HTTPResponse {
        HTTPResponse(status: code.status, body: code.body(message: "test"))
    }

    private func sender(_ gateway: RecordingHTTPServer, _ authorization: HermesGatewayAuthorization,
                        store: HermesDeviceStore? = nil, sleeps: SleepRecorder = SleepRecorder()) throws -> HermesGatewaySender {
        let url = try #require(URL(string: gateway.baseURL + "/v1/push"))
        return HermesGatewaySender(configuration: HermesGatewayConfiguration(pushURL: url, authorization: authorization),
                                   store: store, sleep: sleeps.sleep)
    }

    @Test func hmacModeSignsTheCanonicalBytes() async throws {
        let gateway = try RecordingHTTPServer { _, _ in HTTPResponse(status: 200) }
        defer { gateway.stop() }
        let result = try await sender(gateway, .sharedSecret(Array("s".utf8))).send(.approval, sessionID: "sess-1", to: device(tokenA))
        #expect(result.outcome == .delivered)
        let request = try #require(gateway.requests.first)
        #expect(request.path == "/v1/push" && request.method == "POST")
        #expect(request.headers["content-type"] == "application/json")
        #expect(request.headers["user-agent"]?.hasPrefix("hermes-push-agent/") == true)
        let parsed = try HermesPushRequest(body: request.body)
        #expect(parsed.capability == nil)
        // The contract's first vector: this exact request under secret "s".
        #expect(parsed.hmac == "af1a8dbc43a586d4a0f8e6813e5afe46f869b9d48faaa90f2e609500121972d9")
    }

    @Test func capabilityModeRegistersOnceThenReusesTheCapability() async throws {
        let gateway = try RecordingHTTPServer { request, _ in
            request.path.hasSuffix("/register") ? Self.json(200, #"{"capability":"cap-1"}"#) : HTTPResponse(status: 200)
        }
        defer { gateway.stop() }
        let sender = try sender(gateway, .capability)
        #expect(await sender.send(.approval, sessionID: "s1", to: device(tokenA)).outcome == .delivered)
        #expect(await sender.send(.complete, sessionID: "s1", to: device(tokenA)).outcome == .delivered)
        #expect(gateway.requests.map(\.path) == ["/v1/register", "/v1/push", "/v1/push"])
        #expect(try HermesRegistration.deviceToken(fromRequestBody: gateway.requests[0].body).hex == tokenA)
        #expect(try HermesPushRequest(body: gateway.requests[1].body).capability == "cap-1")
        #expect(try HermesPushRequest(body: gateway.requests[1].body).hmac == nil)
    }

    @Test func a403RefreshesTheCapabilityOnceAndRetriesOnce() async throws {
        let gateway = try RecordingHTTPServer { request, index in
            if request.path.hasSuffix("/register") { return Self.json(200, #"{"capability":"cap-\#(index)"}"#) }
            return index == 1 ? Self.error(.invalidCapability) : HTTPResponse(status: 200)
        }
        defer { gateway.stop() }
        let result = try await sender(gateway, .capability).send(.approval, sessionID: "s1", to: device(tokenA))
        #expect(result.outcome == .delivered)
        #expect(result.refreshedCapability && result.registerAttempts == 2 && result.pushAttempts == 2)
        #expect(gateway.requests.map(\.path) == ["/v1/register", "/v1/push", "/v1/register", "/v1/push"])
        #expect(try HermesPushRequest(body: gateway.requests[3].body).capability == "cap-2", "the retry carries the new capability")
    }

    @Test func a403ThatPersistsIsRefreshedOnlyOnce() async throws {
        let gateway = try RecordingHTTPServer { request, _ in
            request.path.hasSuffix("/register") ? Self.json(200, #"{"capability":"c"}"#) : Self.error(.invalidCapability)
        }
        defer { gateway.stop() }
        let result = try await sender(gateway, .capability).send(.approval, sessionID: "s1", to: device(tokenA))
        #expect(result.outcome == .rejected(status: 403, code: "invalid_capability"))
        #expect(gateway.requests.count == 4, "register, push, register, push: no loop")
    }

    @Test func hmacMode403IsNotRetried() async throws {
        let gateway = try RecordingHTTPServer { _, _ in Self.error(.invalidHMAC) }
        defer { gateway.stop() }
        let result = try await sender(gateway, .sharedSecret([1])).send(.approval, sessionID: "s1", to: device(tokenA))
        #expect(result.outcome == .rejected(status: 403, code: "invalid_hmac"))
        #expect(gateway.requests.count == 1)
    }

    @Test func fiveHundredsAreRetriedABoundedNumberOfTimesWithBackoff() async throws {
        let gateway = try RecordingHTTPServer { _, _ in Self.error(.apnsUnavailable) }
        defer { gateway.stop() }
        let sleeps = SleepRecorder()
        let result = try await sender(gateway, .sharedSecret([1]), sleeps: sleeps).send(.error, sessionID: "s1", to: device(tokenA))
        guard case .failed(let detail) = result.outcome else {
            Issue.record("expected a failure, got \(result.outcome)")
            return
        }
        #expect(detail.contains("503"))
        #expect(result.pushAttempts == 3 && gateway.requests.count == 3)
        #expect(sleeps.recorded == [.milliseconds(500), .seconds(1)])
    }

    @Test func aTransient5xxThenSuccessDelivers() async throws {
        let gateway = try RecordingHTTPServer { _, index in index == 0 ? HTTPResponse(status: 502) : HTTPResponse(status: 200) }
        defer { gateway.stop() }
        let sleeps = SleepRecorder()
        let result = try await sender(gateway, .sharedSecret([1]), sleeps: sleeps).send(.clarify, sessionID: "s1", to: device(tokenA))
        #expect(result.outcome == .delivered && result.pushAttempts == 2)
        #expect(sleeps.recorded == [.milliseconds(500)])
    }

    @Test func networkErrorsAreRetriedBoundedAndReportedWithoutCrashing() async throws {
        let sleeps = SleepRecorder()
        let url = try #require(URL(string: "http://127.0.0.1:9/push"))
        var configuration = HermesGatewayConfiguration(pushURL: url, authorization: .capability)
        configuration.maximumAttempts = 4
        configuration.backoff = [.milliseconds(1)]
        let result = await HermesGatewaySender(configuration: configuration, store: nil, sleep: sleeps.sleep)
            .send(.approval, sessionID: "s1", to: device(tokenA))
        guard case .failed(let detail) = result.outcome else {
            Issue.record("expected a failure, got \(result.outcome)")
            return
        }
        #expect(detail.contains("unreachable"))
        #expect(result.registerAttempts == 4 && result.pushAttempts == 0, "the capability could not be fetched")
        #expect(sleeps.recorded == [.milliseconds(1), .milliseconds(1), .milliseconds(1)])
    }

    @Test func a410PrunesTheDeviceFromTheStore() async throws {
        let gateway = try RecordingHTTPServer { _, _ in Self.error(.deviceTokenInactive) }
        defer { gateway.stop() }
        let store = try HermesDeviceStore(path: temporaryStorePath())
        try store.register(device(tokenA))
        try store.register(device(tokenB))
        let result = try await sender(gateway, .sharedSecret([1]), store: store).send(.approval, sessionID: "s1", to: device(tokenA))
        #expect(result.outcome == .pruned)
        #expect(store.all.map(\.deviceToken) == [tokenB])
        #expect(try HermesDeviceStore(path: store.path).all.map(\.deviceToken) == [tokenB], "pruned on disk too")
    }

    @Test func a400GivesUpAtOnce() async throws {
        let gateway = try RecordingHTTPServer { _, _ in Self.error(.invalidRequest) }
        defer { gateway.stop() }
        let result = try await sender(gateway, .sharedSecret([1])).send(.approval, sessionID: "s1", to: device(tokenA))
        #expect(result.outcome == .rejected(status: 400, code: "invalid_request"))
        #expect(gateway.requests.count == 1)
    }

    @Test func resultsMaskTheTokenAndCarryNoSecrets() async throws {
        let gateway = try RecordingHTTPServer { request, index in
            if request.path.hasSuffix("/register") { return Self.json(200, #"{"capability":"SECRET-CAPABILITY"}"#) }
            return index == 1 ? Self.json(403, #"{"error":"invalid_capability","message":"\#(tokenA)"}"#) : Self.json(500, #"{"error":"\#(tokenA)"}"#)
        }
        defer { gateway.stop() }
        let result = try await sender(gateway, .capability).send(.approval, sessionID: "s1", to: device(tokenA))
        let text = String(describing: result) + String(reflecting: result)
        #expect(result.maskedDeviceToken == "abab…abab")
        #expect(!text.contains(tokenA))
        #expect(!text.contains("SECRET-CAPABILITY"))
        #expect(text.contains("abab…abab"))
    }
}
