/// How the mock answers one push: APNs' status, reason and ids, and what happens to the
/// connection afterwards.
public struct PushOutcome: Sendable, Hashable {
    /// What the connection does after this answer.
    public enum ConnectionAction: Sendable, Hashable {
        /// Nothing special.
        case none
        /// GOAWAY with `{"reason":"…"}` as debug data, as APNs does after fatal auth errors.
        case goAway
        /// Close without GOAWAY (a fault).
        case close
    }

    public var status: Int
    /// The reason for a non-200 answer.
    public var reason: APNsReason?
    /// The `apns-id` answered: the request's, echoed, or a generated one.
    public var apnsID: String
    /// `apns-unique-id`, which only the sandbox sends.
    public var uniqueID: String?
    /// For 410: when the token became invalid, in milliseconds since 1970.
    public var timestamp: Int64?
    public var connectionAction: ConnectionAction
    /// Why the mock answered so, in one sentence for people ("topic com.example.wrong is not
    /// served; …"); nil when accepted. Never part of APNs' body, which holds only the reason.
    public var explanation: String?
    /// Whether a fault rule chose this answer, not the push's own merits: a test's injected
    /// 503 is not the sender's failure.
    public var isInjected: Bool
    /// `apns-request-id`, which a broadcast's answer carries (echoed or generated) where a
    /// device push's carries `apns-id`; nil for device pushes.
    public var requestID: String?

    /// An accepted push.
    public static func accepted(apnsID: String, uniqueID: String?) -> PushOutcome {
        PushOutcome(status: 200, reason: nil, apnsID: apnsID, uniqueID: uniqueID, timestamp: nil, connectionAction: .none)
    }

    public init(status: Int, reason: APNsReason?, apnsID: String, uniqueID: String?, timestamp: Int64?,
                connectionAction: ConnectionAction, explanation: String? = nil, isInjected: Bool = false) {
        self.status = status
        self.reason = reason
        self.apnsID = apnsID
        self.uniqueID = uniqueID
        self.timestamp = timestamp
        self.connectionAction = connectionAction
        self.explanation = explanation
        self.isInjected = isInjected
    }

    /// Whether APNs counts this as accepted.
    public var isAccepted: Bool { status == 200 }
}
