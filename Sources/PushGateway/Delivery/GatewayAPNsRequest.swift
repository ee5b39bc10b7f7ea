import APNsCore
import HermesContract

/// The APNs request the gateway sends for one authorized `/push` (contract §3): built only
/// from the validated type, session id, device token and environment, never from other
/// bytes of the incoming request.
public struct GatewayAPNsRequest: Sendable, Hashable {
    /// The device, lowercase hex.
    public var deviceToken: DeviceToken
    /// `apns-topic`: the configured bundle id.
    public var topic: String
    /// `apns-id`: fresh per push, and the same on every retry of it.
    public var apnsID: String
    /// `apns-expiration`, UNIX seconds.
    public var expiration: Int64
    /// `apns-collapse-id`: from type and session, at most 64 bytes.
    public var collapseID: String
    /// `apns-push-type`: `alert`.
    public var pushType: APNsPushType
    /// `apns-priority`: 10.
    public var priority: APNsPriority
    /// The payload bytes, exactly ``HermesNotification/payload()``.
    public var payload: [UInt8]

    /// The request for `notification` to `deviceToken`, sent at `sentAt` (UNIX seconds).
    public init(notification: HermesNotification, deviceToken: DeviceToken, topic: String, apnsID: String, sentAt: Int64) {
        self.deviceToken = deviceToken
        self.topic = topic
        self.apnsID = apnsID
        expiration = notification.expiration(sentAt: sentAt)
        collapseID = notification.collapseID
        pushType = .alert
        priority = .immediately
        payload = notification.payload()
    }
}
