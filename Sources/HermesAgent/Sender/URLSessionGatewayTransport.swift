import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// ``HermesGatewayTransport`` over URLSession.
///
/// URLSession, rather than the package's HTTP2Client, because the gateway is any URL the
/// user configures (often `https://` behind a reverse proxy, trusted by the system's CA
/// store, reached over HTTP/1.1 like the Python plugin does), and because HTTP2Client is
/// made for one long-lived HTTP/2 connection to a fixed host, which is APNs' shape, not a
/// plugin's occasional POST.
public struct URLSessionGatewayTransport: HermesGatewayTransport {
    private let session: URLSession

    /// - Parameter session: The URLSession to use; `.shared` by default.
    public init(session: URLSession = .shared) {
        self.session = session
    }

    public func post(to url: URL, body: [UInt8], userAgent: String, timeout: Duration) async -> HermesGatewayExchange {
        var request = URLRequest(url: url, timeoutInterval: Double(timeout.components.seconds)
                                 + Double(timeout.components.attoseconds) / 1e18)
        request.httpMethod = "POST"
        request.httpBody = Data(body)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(userAgent, forHTTPHeaderField: "User-Agent")
        do {
            let (data, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else { return .transportError("the answer was not HTTP") }
            return .answered(status: http.statusCode, body: Array(data))
        } catch {
            return .transportError(error.localizedDescription)
        }
    }
}
