/// The APNs request headers a rule may look at, as sent (text, not validated), so that a
/// rule can flag a value APNs would reject as well as one it would accept.
public struct PushHeaders: Sendable, Hashable {
    /// `apns-push-type`, as sent.
    public var pushType: String?
    /// `apns-topic`.
    public var topic: String?
    /// `apns-priority` as a number; nil when absent or not a number.
    public var priority: Int?
    /// `apns-priority` as sent when it is not a number (``priority`` is then nil): APNs
    /// rejects it (BadPriority), so a rule must not take it for an absent header.
    public var unparsedPriority: String?
    /// `apns-expiration` in UNIX seconds; nil when absent or not a number.
    public var expiration: Int64?
    /// `apns-expiration` as sent when it is not a number (``expiration`` is then nil): APNs
    /// rejects it (BadExpirationDate).
    public var unparsedExpiration: String?
    /// `apns-collapse-id`.
    public var collapseID: String?
    /// `apns-id`.
    public var apnsID: String?
    /// The device token from the request path, in hex.
    public var deviceToken: String?
    /// `apns-channel-id`: set for a broadcast (`/4/broadcasts/apps/<bundleID>`), which goes
    /// to a channel's subscribers instead of a device.
    public var channelID: String?

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

    /// Headers from their text as sent: `apns-priority` and `apns-expiration` become numbers,
    /// or, when they are not numbers, ``unparsedPriority`` and ``unparsedExpiration``.
    public init(
        sentPushType pushType: String?, topic: String?, priority: String?, expiration: String?,
        collapseID: String?, apnsID: String?, deviceToken: String?
    ) {
        self.init(pushType: pushType, topic: topic, collapseID: collapseID, apnsID: apnsID, deviceToken: deviceToken)
        self.priority = priority.flatMap { Int($0) }
        unparsedPriority = self.priority == nil ? priority : nil
        self.expiration = expiration.flatMap { Int64($0) }
        unparsedExpiration = self.expiration == nil ? expiration : nil
    }
}
