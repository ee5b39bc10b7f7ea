import APNsCapture
import APNsCore
import Foundation

/// What became of one push after APNs' answer: the delivery log's record, looked up by
/// `apns-id`, `apns-unique-id` or device (docs/delivery.md).
public struct DeliveryRecord: Sendable, Hashable {
    /// The log's own number, in order of arrival.
    public var serial: UInt64
    /// The `apns-id` answered.
    public var apnsID: String
    /// The `apns-unique-id` answered (sandbox only).
    public var uniqueID: String?
    public var deviceToken: DeviceToken
    public var topic: String
    public var pushType: APNsPushType
    public var priority: APNsPriority
    /// `apns-expiration`, UNIX seconds, if sent.
    public var expiration: Int64?
    public var collapseID: String?
    /// When the mock answered it.
    public var acceptedAt: Date
    /// Each change, oldest first; never empty.
    public var events: [DeliveryEvent]

    /// The state now: the last event's.
    public var state: DeliveryState { events.last?.state ?? .stored }
}

/// One change of a push's delivery state, with its time.
public struct DeliveryEvent: Sendable, Hashable {
    public var state: DeliveryState
    /// Why, for states that have a reason.
    public var why: DeliveryReason?
    /// The `apns-id` of the push that caused it (coalescing, collapse).
    public var by: String?
    public var at: Date

    public init(state: DeliveryState, why: DeliveryReason? = nil, by: String? = nil, at: Date) {
        self.state = state
        self.why = why
        self.by = by
        self.at = at
    }
}

/// Why a push is stored, discarded or rejected.
public enum DeliveryReason: String, Sendable, Hashable, CaseIterable {
    /// Stored: the device is offline.
    case offline
    /// Stored: priority 5 or 1, held for the device's power considerations.
    case power
    /// Discarded: a later push for the same app took its place in storage.
    case coalesced
    /// Discarded: its `apns-expiration` passed (or was 0) before the device could get it.
    case expired
    /// Discarded: a background push over the device's budget.
    case budget
    /// Rejected: 410 `Unregistered`.
    case unregistered
    /// Rejected: 410 `ExpiredToken`.
    case expiredToken = "expired_token"
    /// Rejected: 500 `InternalServerError`, answered because the mock could not write the
    /// push's capture line. The push is taken back from the device: it is neither stored
    /// nor shown, and this is its record's one event.
    case internalServerError = "internal_server_error"
}
