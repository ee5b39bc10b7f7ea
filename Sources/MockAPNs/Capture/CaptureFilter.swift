import APNsCore
import Foundation
import HTTPTransport

/// Which records a query or a wait is about. Every condition is optional; the ones set must
/// all hold. An empty filter matches every record.
///
/// ```swift
/// let rejectedForDevice = CaptureFilter(deviceToken: token, outcome: .rejected)
/// ```
public struct CaptureFilter: Sendable, Hashable {
    /// Whether APNs accepted the push.
    public enum Outcome: Sendable, Hashable {
        /// Status 200.
        case accepted
        /// Any other status.
        case rejected
    }

    /// The device token from the path.
    public var deviceToken: DeviceToken?
    /// The topic validation settled on, compared exactly.
    public var topic: String?
    public var outcome: Outcome?
    /// The reason answered; implies a rejection.
    public var reason: APNsReason?
    /// The `apns-id` answered, compared without regard to ASCII case as UUIDs are.
    public var apnsID: String?
    /// Records received at or after this time.
    public var since: Date?
    /// Records received before this time (the interval is half-open, so consecutive
    /// windows never count a record twice).
    public var until: Date?

    /// Creates a filter; leave out the conditions that do not matter.
    public init(
        deviceToken: DeviceToken? = nil, topic: String? = nil, outcome: Outcome? = nil, reason: APNsReason? = nil,
        apnsID: String? = nil, since: Date? = nil, until: Date? = nil
    ) {
        self.deviceToken = deviceToken
        self.topic = topic
        self.outcome = outcome
        self.reason = reason
        self.apnsID = apnsID
        self.since = since
        self.until = until
    }

    /// A filter that matches every record.
    public static let all = CaptureFilter()

    /// Whether `record` satisfies every condition set.
    public func matches(_ record: CaptureRecord) -> Bool {
        matches(Keys(record))
    }

    /// The fields of a record that filters look at, kept beside its line in the ring.
    struct Keys: Sendable {
        var deviceToken: DeviceToken?
        var topic: String?
        var isAccepted: Bool
        var reason: APNsReason?
        var apnsID: String
        var receivedAtMicroseconds: Int64

        init(_ source: some CaptureLineSource) {
            deviceToken = source.deviceToken
            topic = source.topic
            isAccepted = source.outcome.isAccepted
            reason = source.outcome.reason
            apnsID = source.outcome.apnsID
            receivedAtMicroseconds = source.receivedAtMicroseconds
        }
    }

    func matches(_ keys: Keys) -> Bool {
        if let deviceToken, keys.deviceToken != deviceToken { return false }
        if let topic, keys.topic != topic { return false }
        if let outcome, (outcome == .accepted) != keys.isAccepted { return false }
        if let reason, keys.reason != reason { return false }
        if let apnsID, !keys.apnsID.equalsIgnoringASCIICase(apnsID) { return false }
        if let since, keys.receivedAtMicroseconds < CaptureRecord.microseconds(since1970: since) { return false }
        if let until, keys.receivedAtMicroseconds >= CaptureRecord.microseconds(since1970: until) { return false }
        return true
    }
}
