import Foundation

/// One push the mock accepted for the virtual device, and what the app logic did with it.
public struct HermesDelivery: Sendable, Hashable {
    /// The capture's sequence number.
    public var sequence: Int
    /// The `apns-id` the mock answered.
    public var apnsID: String?
    /// `apns-collapse-id`, if sent.
    public var collapseID: String?
    /// `apns-push-type` as validated (`alert`).
    public var pushType: String?
    /// `apns-priority`.
    public var priority: Int?
    /// `apns-expiration`, UNIX seconds.
    public var expiration: Int?
    /// The topic the mock settled on.
    public var topic: String?
    /// The payload bytes exactly as received.
    public var payload: [UInt8]
    /// What the app did; nil when the payload is not a Hermes push.
    public var outcome: HermesNotificationOutcome?

    /// The payload as text (it is UTF-8 JSON for every valid push).
    public var payloadText: String { String(decoding: payload, as: UTF8.self) }
}
