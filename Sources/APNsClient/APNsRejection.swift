import APNsCore
import Foundation

/// APNs answered a push with an error status and reason.
public struct APNsRejection: Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status, such as 400 or 410.
    public var status: Int
    /// The `reason` from the JSON body; `.unknown` with the body text when it had none.
    public var reason: APNsReason
    /// For 410: when APNs last confirmed the token invalid, in milliseconds since 1970.
    public var timestampMilliseconds: Int64?
    /// `apns-id` of the push; empty for a broadcast or channel request, which have ``requestID``.
    public var apnsID: String
    /// `apns-unique-id`, which only the sandbox sends.
    public var uniqueID: String?
    /// `apns-request-id` of a broadcast or channel management request, as APNs echoed it.
    public var requestID: String?

    /// A rejection value, for tests and adapters.
    public init(status: Int, reason: APNsReason, timestampMilliseconds: Int64? = nil, apnsID: String, uniqueID: String? = nil,
                requestID: String? = nil) {
        self.status = status
        self.reason = reason
        self.timestampMilliseconds = timestampMilliseconds
        self.apnsID = apnsID
        self.uniqueID = uniqueID
        self.requestID = requestID
    }

    /// `timestampMilliseconds` as a date.
    public var timestamp: Date? {
        timestampMilliseconds.map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }

    /// Whether Apple allows sending the push again: any 5xx, and 429 `TooManyRequests`.
    public var isRetryable: Bool {
        status >= 500 || reason == .tooManyRequests
    }

    /// Whether the device token should be forgotten: 410 `Unregistered` or `ExpiredToken`.
    public var meansDeviceIsGone: Bool { status == 410 }

    /// Such as `410 Unregistered (apns-id …, timestamp 1700000000123)`, or
    /// `400 BadChannelId (apns-request-id …)`.
    public var description: String {
        var text = if let requestID { "\(status) \(reason.wireValue) (apns-request-id \(requestID)" } else {
            "\(status) \(reason.wireValue) (apns-id \(apnsID)"
        }
        if let timestampMilliseconds { text += ", timestamp \(timestampMilliseconds)" }
        return text + ")"
    }
}
