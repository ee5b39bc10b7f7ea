import APNsCore
import Foundation

/// One change the delivery model made, numbered in the order it made them: a push's new
/// state, or a device going online or offline (`GET /delivery/live`, docs/control-api.md).
public struct DeliveryChange: Sendable, Hashable {
    /// The change's number: 1 for the model's first, one more for each after it.
    public var sequence: UInt64
    public var deviceToken: DeviceToken
    public var what: What

    /// What changed.
    public enum What: Sendable, Hashable {
        /// A push reached a state; `event` is the one its record's events gained.
        case push(apnsID: String, uniqueID: String?, topic: String, event: DeliveryEvent)
        /// The device came online or went offline (by a plan, a call, or a window's edge).
        case connectivity(DeviceConnectivity, at: Date)
    }

    /// When it happened.
    public var at: Date {
        switch what {
        case .push(_, _, _, let event): event.at
        case .connectivity(_, let at): at
        }
    }
}

/// What ``DeliveryModel/changes(after:limit:)`` finds for a follower.
public struct DeliveryChanges: Sendable, Hashable {
    /// The newest changes numbered after the follower's number, newest first.
    public var changes: [DeliveryChange]
    /// How many changes numbered after it the model still keeps: more than `changes` holds
    /// when the follower fell behind.
    public var matched: Int
    /// The number of the model's latest change (0 before the first).
    public var latestSequence: UInt64
}
