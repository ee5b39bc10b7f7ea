import Foundation

/// One POST to the gateway, behind a protocol so tests can count and script requests.
/// ``URLSessionGatewayTransport`` is the real one.
public protocol HermesGatewayTransport: Sendable {
    /// POSTs `body` (JSON) to `url` and returns the answer, or why there was none.
    func post(to url: URL, body: [UInt8], userAgent: String, timeout: Duration) async -> HermesGatewayExchange
}

/// The result of one POST.
public enum HermesGatewayExchange: Sendable, Hashable {
    /// The gateway answered.
    case answered(status: Int, body: [UInt8])
    /// No answer: connection refused, reset, timeout…
    case transportError(String)
}
