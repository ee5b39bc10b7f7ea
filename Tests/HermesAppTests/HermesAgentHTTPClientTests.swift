import Foundation
import HTTPTransport
import HermesApp
import PushTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct HermesAgentHTTPClientTests {
    @Test func registerPostsTheContractsBodyWithTheSessionToken() async throws {
        let agent = try RecordingHTTPServer { _, _ in HTTPResponse(status: 200, text: "{}") }
        defer { agent.stop() }
        let api = HermesAgentHTTPClient(baseURL: try #require(URL(string: agent.baseURL + "/")), sessionToken: "tok-1")
        try await api.registerDevice(HermesDeviceRegistration(deviceToken: "abcd", environment: .sandbox, appVersion: "3.0"))
        try await api.unregisterDevice(deviceToken: "abcd")

        let requests = agent.requests
        #expect(requests.map(\.path) == [HermesAgentEndpoint.register, HermesAgentEndpoint.unregister])
        #expect(requests.allSatisfy { $0.method == "POST" && $0.headers["authorization"] == "Bearer tok-1" })
        let body = try #require(try JSONSerialization.jsonObject(with: Data(requests[0].body)) as? [String: String])
        #expect(body == ["device_token": "abcd", "apns_env": "sandbox", "app_version": "3.0"])
    }

    @Test func theHubIsReadOverHTTPAndClassified() async throws {
        let agent = try RecordingHTTPServer { request, index in
            index == 0 ? HTTPResponse(status: 200, text: #"{"plugins":[{"name":"hermes-push","runtime_status":"enabled"}]}"#)
                : HTTPResponse(status: 401, text: #"{"error":"unauthorized"}"#)
        }
        defer { agent.stop() }
        let api = HermesAgentHTTPClient(baseURL: try #require(URL(string: agent.baseURL)), sessionToken: "t")
        #expect(HermesPluginReadiness(hubAnswer: await api.fetchPluginHub()) == .ready)
        #expect(HermesPluginReadiness(hubAnswer: await api.fetchPluginHub()) == .unknown)
        #expect(agent.requests.first?.path == HermesAgentEndpoint.pluginHub)
        #expect(agent.requests.first?.method == "GET")
    }

    @Test func anUnreachableAgentIsATransportErrorAndUnknown() async throws {
        // Port 9 (discard) on loopback has no listener here: connection refused.
        let api = HermesAgentHTTPClient(baseURL: try #require(URL(string: "http://127.0.0.1:9")), sessionToken: "t", timeout: 5)
        let answer = await api.fetchPluginHub()
        guard case .transportError = answer else {
            Issue.record("expected a transport error, got \(answer)")
            return
        }
        #expect(HermesPluginReadiness(hubAnswer: answer) == .unknown)
        await #expect(throws: HermesAgentAPIError.self) { try await api.sendTestNotification() }
    }
}
