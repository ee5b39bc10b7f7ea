import APNsCore
import JWTVerify

/// A device token the mock knows: which app and environment it belongs to, and its state.
public struct RegisteredDevice: Sendable, Hashable {
    public var token: DeviceToken
    /// The bundle ID of the app that registered the token; pushes to other apps get
    /// `DeviceTokenNotForTopic`.
    public var bundleID: String
    /// Tokens belong to one environment; the other answers `BadDeviceToken`.
    public var environment: APNsEnvironment
    public var state: DeviceState

    public init(token: DeviceToken, bundleID: String, environment: APNsEnvironment, state: DeviceState = .active) {
        self.token = token
        self.bundleID = bundleID
        self.environment = environment
        self.state = state
    }
}
