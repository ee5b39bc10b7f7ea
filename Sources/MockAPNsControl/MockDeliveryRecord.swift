import APNsCapture
import APNsCore

/// One push's delivery record as the control API's `GET /delivery` answers it
/// (docs/delivery.md, "The delivery log"): what became of an accepted push after its 200.
public struct MockDeliveryRecord: Sendable, Hashable {
    /// The `apns-id` answered.
    public var apnsID: String
    /// The `apns-unique-id` answered (sandbox only).
    public var uniqueID: String?
    /// The device the push was for.
    public var deviceToken: DeviceToken
    /// `apns-topic`.
    public var topic: String
    /// `apns-push-type`.
    public var pushType: APNsPushType
    /// `apns-priority`.
    public var priority: Int
    /// `apns-expiration`, UNIX seconds, if sent.
    public var expiration: Int64?
    /// `apns-collapse-id`, if sent.
    public var collapseID: String?
    /// When the mock answered the push, microseconds since 1970.
    public var acceptedAtMicroseconds: Int64
    /// The state now: the last event's.
    public var state: DeliveryState
    /// Each change, oldest first, in the capture file's event form. The control API numbers
    /// no events, so each ``CaptureDeliveryEvent/sequence`` is 0.
    public var events: [CaptureDeliveryEvent]
}
