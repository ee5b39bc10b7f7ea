import Foundation
import HermesContract

/// The agent's HTTP API as the app uses it for push (contract §4), behind a protocol so
/// the registration and onboarding logic can be tested without an agent.
public protocol HermesAgentAPI: Sendable {
    /// `GET /api/dashboard/plugins/hub`. Never throws: every failure is an answer the
    /// readiness check classifies.
    func fetchPluginHub() async -> HermesHubAnswer

    /// `POST /api/plugins/hermes-push/register` `{device_token, apns_env, app_version}`.
    ///
    /// - Throws: ``HermesAgentAPIError`` when the agent did not answer 2xx.
    func registerDevice(_ registration: HermesDeviceRegistration) async throws(HermesAgentAPIError)

    /// Tells the agent to forget a device token (the user turned notifications off).
    ///
    /// - Throws: ``HermesAgentAPIError`` when the agent did not answer 2xx.
    func unregisterDevice(deviceToken: String) async throws(HermesAgentAPIError)

    /// `POST /api/plugins/hermes-push/test`: the settings screen's "Send test notification".
    ///
    /// - Throws: ``HermesAgentAPIError`` when the agent did not answer 2xx.
    func sendTestNotification() async throws(HermesAgentAPIError)
}

/// What the app registers with the agent for one device.
public struct HermesDeviceRegistration: Sendable, Hashable, Codable {
    /// The APNs device token, lowercase hex.
    public var deviceToken: String
    /// The APNs environment the token belongs to (a debug build's token is sandbox).
    public var environment: HermesAPNsEnvironment
    /// The app's version, so the agent can tell which app sent a token.
    public var appVersion: String

    /// A registration of `deviceToken` (lowercase hex).
    public init(deviceToken: String, environment: HermesAPNsEnvironment, appVersion: String) {
        self.deviceToken = deviceToken
        self.environment = environment
        self.appVersion = appVersion
    }

    enum CodingKeys: String, CodingKey {
        case deviceToken = "device_token"
        case environment = "apns_env"
        case appVersion = "app_version"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(deviceToken, forKey: .deviceToken)
        try container.encode(environment.rawValue, forKey: .environment)
        try container.encode(appVersion, forKey: .appVersion)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let environment = try container.decode(String.self, forKey: .environment)
        guard let parsed = HermesAPNsEnvironment(rawValue: environment) else {
            throw DecodingError.dataCorruptedError(forKey: .environment, in: container,
                                                   debugDescription: "apns_env must be sandbox or production")
        }
        self.init(deviceToken: try container.decode(String.self, forKey: .deviceToken), environment: parsed,
                  appVersion: try container.decode(String.self, forKey: .appVersion))
    }
}

/// Why a call to the agent's API failed.
public enum HermesAgentAPIError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The agent answered with a status other than 2xx.
    case status(Int, path: String)
    /// No answer: the agent is unreachable, or the request timed out.
    case transport(String)

    public var description: String {
        switch self {
        case .status(let status, let path): "the agent answered \(status) to \(path)"
        case .transport(let detail): "the agent could not be reached: \(detail)"
        }
    }
}
