import Foundation
import HermesContract
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// ``HermesAgentAPI`` over URLSession: the agent's base URL and the session token the
/// app authenticates with (sent as `Authorization: Bearer …`).
///
/// ```swift
/// let api = HermesAgentHTTPClient(baseURL: URL(string: "https://agent.tailnet.ts.net")!, sessionToken: token)
/// let readiness = HermesPluginReadiness(hubAnswer: await api.fetchPluginHub())
/// ```
public struct HermesAgentHTTPClient: HermesAgentAPI {
    /// The agent's origin; endpoint paths are appended to it.
    public let baseURL: URL
    private let sessionToken: String
    private let session: URLSession
    private let timeout: TimeInterval

    /// - Parameters:
    ///   - baseURL: The agent's origin, such as `http://127.0.0.1:9119`.
    ///   - sessionToken: The agent's session token.
    ///   - timeout: Seconds before a request counts as a transport error.
    ///   - session: The URLSession to use; `.shared` unless a test or app has its own.
    public init(baseURL: URL, sessionToken: String, timeout: TimeInterval = 10, session: URLSession = .shared) {
        self.baseURL = baseURL
        self.sessionToken = sessionToken
        self.timeout = timeout
        self.session = session
    }

    public func fetchPluginHub() async -> HermesHubAnswer {
        switch await URLSessionExchange.perform(request("GET", HermesAgentEndpoint.pluginHub, body: nil), session: session) {
        case .success(let answer): .response(status: answer.status, body: answer.body)
        case .failure(let failure): .transportError(failure.description)
        }
    }

    public func registerDevice(_ registration: HermesDeviceRegistration) async throws(HermesAgentAPIError) {
        let body = (try? JSONEncoder().encode(registration)) ?? Data()
        try await post(HermesAgentEndpoint.register, body: body)
    }

    public func unregisterDevice(deviceToken: String) async throws(HermesAgentAPIError) {
        let body = (try? JSONEncoder().encode(["device_token": deviceToken])) ?? Data()
        try await post(HermesAgentEndpoint.unregister, body: body)
    }

    public func sendTestNotification() async throws(HermesAgentAPIError) {
        try await post(HermesAgentEndpoint.test, body: Data("{}".utf8))
    }

    private func post(_ path: String, body: Data) async throws(HermesAgentAPIError) {
        switch await URLSessionExchange.perform(request("POST", path, body: body), session: session) {
        case .success(let answer) where (200..<300).contains(answer.status): return
        case .success(let answer): throw .status(answer.status, path: path)
        case .failure(let failure): throw .transport(failure.description)
        }
    }

    private func request(_ method: String, _ path: String, body: Data?) -> URLRequest {
        var request = URLRequest(url: URLSessionExchange.url(baseURL, path: path), timeoutInterval: timeout)
        request.httpMethod = method
        request.setValue("Bearer \(sessionToken)", forHTTPHeaderField: "Authorization")
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        return request
    }
}
