import APNsCore
import JWTVerify

/// The world the mock answers from: the apps it serves, the provider keys it trusts, and
/// the device tokens it knows. Replaced as a whole at runtime through the control API.
public struct MockRegistry: Sendable {
    /// Bundle IDs of the apps served. A topic is one of these plus a push type's suffix.
    public var bundleIDs: Set<String>
    /// Provider-token keys by key ID, with their team, environments and topics.
    public var keys: [String: APNsRegisteredKey]
    /// Known device tokens.
    public var devices: [DeviceToken: RegisteredDevice]
    /// When true, a well-formed token that is not in `devices` is treated as an active
    /// device of whatever app and environment the push names. This is `apns-mock`'s
    /// zero-configuration mode; listing devices turns on the stricter checks.
    public var acceptsUnknownDevices: Bool

    public init(
        bundleIDs: Set<String> = [], keys: [String: APNsRegisteredKey] = [:],
        devices: [DeviceToken: RegisteredDevice] = [:], acceptsUnknownDevices: Bool = true
    ) {
        self.bundleIDs = bundleIDs
        self.keys = keys
        self.devices = devices
        self.acceptsUnknownDevices = acceptsUnknownDevices
    }
}
