import HermesContract

/// What the suite needs to judge a gateway: where it is, the credentials a plugin would
/// have, and the control API of the apns-mock the gateway forwards to.
public struct ConformanceConfiguration: Sendable {
    /// How the suite authorizes its pushes, as a plugin would.
    public enum Credentials: Sendable {
        /// Shared-secret HMAC over the canonical string.
        case hmac(secret: [UInt8])
        /// A capability from the gateway's `/register`.
        case capability
    }

    /// The push URL the plugin is configured with (`https://gw.example/push`), or its base
    /// (`/push` is appended). `/register` is the same URL with `/push` replaced.
    public var gatewayURL: String
    /// The apns-mock's control API, such as `http://127.0.0.1:2199`.
    public var mockControlURL: String
    public var credentials: Credentials
    /// The `apns_env` pushes claim; the mock listener the gateway should reach.
    public var environment: HermesAPNsEnvironment
    /// The bundle id the gateway is configured with; nil skips comparing `apns-topic`.
    public var topic: String?
    /// How long to wait for a push to show up at the mock.
    public var waitTimeout: Duration
    /// Check 6 in real time: how long to keep pushing; the simulated-time hook replaces it.
    public var soakDuration: Duration
    /// Check 6 with simulated time: advances the clock of both the gateway's token minting
    /// and the mock by the given amount. Only an in-process gateway can offer this.
    public var advanceClock: (@Sendable (Duration) async -> Void)?
    /// How much simulated time check 6 covers, in `simulatedStep` steps.
    public var simulatedDuration: Duration
    public var simulatedStep: Duration

    public init(gatewayURL: String, mockControlURL: String, credentials: Credentials) {
        self.gatewayURL = gatewayURL
        self.mockControlURL = mockControlURL
        self.credentials = credentials
        environment = .sandbox
        topic = nil
        waitTimeout = .seconds(10)
        soakDuration = .seconds(3)
        advanceClock = nil
        simulatedDuration = .seconds(5 * 3600)
        simulatedStep = .seconds(10 * 60)
    }

    /// `…/push`.
    var pushURL: String {
        let trimmed = gatewayURL.hasSuffix("/") ? String(gatewayURL.dropLast()) : gatewayURL
        return trimmed.hasSuffix("/push") ? trimmed : trimmed + "/push"
    }

    /// `…/register`: the push URL with its final `/push` replaced (contract §2.2).
    var registerURL: String { String(pushURL.dropLast("/push".count)) + "/register" }
}
