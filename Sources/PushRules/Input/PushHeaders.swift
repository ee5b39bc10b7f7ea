/// The APNs request headers a rule may look at, as sent (text, not validated), so that a
/// rule can flag a value APNs would reject as well as one it would accept.
public struct PushHeaders: Sendable, Hashable {
    /// `apns-push-type`, as sent.
    public var pushType: String?
    /// `apns-topic`.
    public var topic: String?
    /// `apns-priority` as a number; nil when absent or not a number.
    public var priority: Int?
    /// `apns-expiration` in UNIX seconds; nil when absent or not a number.
    public var expiration: Int64?
    /// `apns-collapse-id`.
    public var collapseID: String?
    /// `apns-id`.
    public var apnsID: String?
    /// The device token from the request path, in hex.
    public var deviceToken: String?

    /// Headers with every field optional; a quick check of a payload file passes only the flags given.
    public init(
        pushType: String? = nil, topic: String? = nil, priority: Int? = nil, expiration: Int64? = nil,
        collapseID: String? = nil, apnsID: String? = nil, deviceToken: String? = nil
    ) {
        self.pushType = pushType
        self.topic = topic
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = apnsID
        self.deviceToken = deviceToken
    }
}
