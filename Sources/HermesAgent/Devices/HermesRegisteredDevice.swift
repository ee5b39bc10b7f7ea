import Foundation
import HermesContract

/// A device the app registered with the agent (`POST /api/plugins/hermes-push/register`).
public struct HermesRegisteredDevice: Sendable, Hashable {
    /// The APNs device token, lowercase hex.
    public var deviceToken: String
    /// The environment the token belongs to.
    public var environment: HermesAPNsEnvironment
    /// The app version that registered it.
    public var appVersion: String
    /// When it was (last) registered.
    public var registeredAt: Date

    /// A device as the app registered it; `registeredAt` defaults to now.
    public init(deviceToken: String, environment: HermesAPNsEnvironment, appVersion: String, registeredAt: Date = Date()) {
        self.deviceToken = deviceToken
        self.environment = environment
        self.appVersion = appVersion
        self.registeredAt = registeredAt
    }
}
