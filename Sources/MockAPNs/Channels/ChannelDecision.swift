import APNsCore

/// The mock's answer to one channel management request and what it learned on the way:
/// what the endpoint sends, the capture records and the metrics count.
struct ChannelDecision: Sendable {
    /// What was asked, once the path and method said so.
    var operation: ChannelOperation?
    var bundleID: String?
    /// The `apns-channel-id` sent, or the one created.
    var channelID: String?
    /// `apns-request-id` when sent as a UUID, which the answer echoes.
    var requestID: String?
    /// The channel read, created or deleted.
    var channel: BroadcastChannel?
    /// A list's channel ids.
    var listed: [String] = []
    /// The team and key a provider token authenticated as.
    var teamID: String?
    var keyID: String?
    /// The rejection, if any, and why in one sentence.
    var reason: APNsReason?
    var message: String?

    /// The HTTP status: 201 created, 204 deleted, 200 read or listed, else the reason's.
    var status: Int {
        if let reason { return reason.mockStatus }
        switch operation {
        case .create: return 201
        case .delete: return 204
        default: return 200
        }
    }
}
