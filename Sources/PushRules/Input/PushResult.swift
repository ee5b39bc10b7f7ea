/// How APNs (or the mock) answered a captured push.
public struct PushResult: Sendable, Hashable {
    /// The HTTP status; 200 means accepted.
    public var status: Int
    /// The APNs reason of a rejection, exact wire spelling (`BadDeviceToken`).
    public var reason: String?

    /// A result as captured.
    public init(status: Int, reason: String? = nil) {
        self.status = status
        self.reason = reason
    }

    /// Whether APNs counts the push as accepted.
    public var isAccepted: Bool { status == 200 }
}
