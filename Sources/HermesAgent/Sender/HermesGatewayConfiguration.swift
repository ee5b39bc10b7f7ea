import Foundation

/// Where and how the sender reaches the push gateway. Defaults match the public plugin:
/// 5 s timeout, 3 attempts, backoff 0.5 s then 1 s (contract §2).
public struct HermesGatewayConfiguration: Sendable, Hashable {
    /// The gateway's `…/push` URL.
    public var pushURL: URL
    /// HMAC or capability.
    public var authorization: HermesGatewayAuthorization
    /// Requests per call (the first try included) before a transport error or 5xx is final.
    public var maximumAttempts: Int
    /// The wait before the 2nd, 3rd… attempt; the last entry repeats.
    public var backoff: [Duration]
    /// How long one request may take.
    public var requestTimeout: Duration
    /// The `User-Agent` header.
    public var userAgent: String

    /// The plugin's 3 attempts.
    public static let defaultMaximumAttempts = 3
    /// The plugin's backoff: 0.5 s, then 1 s.
    public static let defaultBackoff: [Duration] = [.milliseconds(500), .seconds(1)]
    /// The plugin's 5 s timeout.
    public static let defaultRequestTimeout = Duration.seconds(5)
    /// Says who is calling, as the plugin's `hermes-push-plugin/1.0 (…)` does.
    public static let defaultUserAgent = "hermes-push-agent/1.0 (swift-apns-mock HermesAgent)"

    /// A configuration with the plugin's defaults.
    public init(pushURL: URL, authorization: HermesGatewayAuthorization) {
        self.pushURL = pushURL
        self.authorization = authorization
        self.maximumAttempts = Self.defaultMaximumAttempts
        self.backoff = Self.defaultBackoff
        self.requestTimeout = Self.defaultRequestTimeout
        self.userAgent = Self.defaultUserAgent
    }

    /// The register URL: the push URL with its final `/push` replaced by `/register`
    /// (contract §2.2); the push URL's sibling `register` when it does not end in `/push`.
    public var registerURL: URL {
        var text = pushURL.absoluteString
        if text.hasSuffix("/push") {
            text.removeLast("push".count)
            return URL(string: text + "register") ?? pushURL
        }
        return pushURL.deletingLastPathComponent().appendingPathComponent("register")
    }

    /// The wait before attempt `attempt + 1`, after `attempt` failed (1-based).
    func delay(afterAttempt attempt: Int) -> Duration {
        guard !backoff.isEmpty else { return .zero }
        return backoff[min(max(attempt, 1), backoff.count) - 1]
    }
}
