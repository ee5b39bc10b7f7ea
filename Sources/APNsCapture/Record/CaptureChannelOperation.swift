import APNsCore

/// One channel management request as the mock answered it: a capture line of kind
/// `channel` (docs/capture-format.md, "Channel operations").
///
/// These lines share the file and the sequence numbers with pushes but not the ring, whose
/// records, filters and waits are pushes; readers that know only pushes skip them.
public struct CaptureChannelOperation: Sendable, Hashable {
    /// When the request arrived, in whole microseconds since 1970.
    public var receivedAtMicroseconds: Int64
    /// The channel management listener it arrived on.
    public var environment: APNsEnvironment
    public var connectionID: UInt64
    public var method: String
    public var path: String
    /// `create`, `read`, `delete` or `list`; nil when the path or method named none.
    public var operation: String?
    /// The bundle ID of the path, once it parsed.
    public var bundleID: String?
    /// The `apns-channel-id` sent, or the one created.
    public var channelID: String?
    /// The channel's `message-storage-policy`, when one was created, read or deleted.
    public var storagePolicy: Int?
    /// The answer's status: 200, 201, 204, or an error's.
    public var status: Int
    public var reason: APNsReason?
    /// Why, in one sentence, for a rejection.
    public var explanation: String?
    /// The answer's `apns-request-id`.
    public var requestID: String
    /// The team and key a provider token authenticated as.
    public var teamID: String?
    public var keyID: String?

    public init(
        receivedAtMicroseconds: Int64, environment: APNsEnvironment, connectionID: UInt64, method: String, path: String,
        operation: String?, bundleID: String?, channelID: String?, storagePolicy: Int?, status: Int, reason: APNsReason?,
        explanation: String?, requestID: String, teamID: String?, keyID: String?
    ) {
        self.receivedAtMicroseconds = receivedAtMicroseconds
        self.environment = environment
        self.connectionID = connectionID
        self.method = method
        self.path = path
        self.operation = operation
        self.bundleID = bundleID
        self.channelID = channelID
        self.storagePolicy = storagePolicy
        self.status = status
        self.reason = reason
        self.explanation = explanation
        self.requestID = requestID
        self.teamID = teamID
        self.keyID = keyID
    }
}
