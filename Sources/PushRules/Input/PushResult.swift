/// How APNs (or the mock) answered a captured push.
public struct PushResult: Sendable, Hashable {
    /// The HTTP status; 200 means accepted.
    public var status: Int
    /// The APNs reason of a rejection, exact wire spelling (`BadDeviceToken`).
    public var reason: String?
    /// Whether a fault rule of the mock, not the push, decided the answer: it says nothing
    /// of what the sender did.
    public var injected: Bool
    /// The mock's fault rules that fired for the push, as `<id>: <summary>`.
    public var faults: [String]
    /// The mock's sentence of why it answered so (the capture's `explanation`), if any.
    public var explanation: String?

    /// A result as captured. Status 0 means the push got no answer (its stream was reset
    /// or its connection closed).
    public init(status: Int, reason: String? = nil, injected: Bool = false, faults: [String] = [], explanation: String? = nil) {
        self.status = status
        self.reason = reason
        self.injected = injected
        self.faults = faults
        self.explanation = explanation
    }

    /// `200`, `400 BadDeviceToken`, or `no answer` for status 0.
    public var summary: String {
        status == 0 ? "no answer" : reason.map { "\(status) \($0)" } ?? String(status)
    }

    /// Whether APNs counts the push as accepted.
    public var isAccepted: Bool { status == 200 }
}
