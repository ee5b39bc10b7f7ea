import APNsCore

/// One Live Activity push to every device subscribed to a broadcast channel (iOS 18):
/// `POST /4/broadcasts/apps/<bundleID>` with `apns-channel-id`, on the APNs host.
///
/// ```swift
/// let broadcast = APNsBroadcast(
///     bundleID: "com.example.app", channelID: channel.id,
///     payload: Array(#"{"aps":{"event":"update","timestamp":1800000000,"content-state":{"score":2}}}"#.utf8))
/// let response = try await client.broadcast(broadcast, environment: .sandbox)
/// ```
///
/// - Important: a broadcast cannot start an activity (`event` `start`); start one with a push
///   to a push-to-start token whose `aps` holds `input-push-channel`.
public struct APNsBroadcast: Sendable, Hashable {
    /// The app's bundle ID, which goes in the path (a broadcast has no `apns-topic`).
    public var bundleID: String
    /// `apns-channel-id`.
    public var channelID: String
    /// `apns-priority`: 10 (the default) or 5; Apple documents no other for Live Activities.
    public var priority: APNsPriority
    /// `apns-expiration`; nil sends none. A channel that stores nothing takes only 0
    /// (``APNsExpiration/immediately``).
    public var expiration: APNsExpiration?
    /// `apns-request-id`, echoed by APNs; nil for a generated UUID.
    public var requestID: String?
    /// The JSON payload (5120 bytes at most).
    public var payload: [UInt8]

    /// A broadcast with the given fields.
    public init(bundleID: String, channelID: String, priority: APNsPriority = .immediately, expiration: APNsExpiration? = nil,
                requestID: String? = nil, payload: [UInt8]) {
        self.bundleID = bundleID
        self.channelID = channelID
        self.priority = priority
        self.expiration = expiration
        self.requestID = requestID
        self.payload = payload
    }

    /// The request, checked for what the client needs to build it; the rest is left to APNs.
    func request() throws(APNsClientError) -> APNsProviderRequest {
        try APNsChannelRequests.checkBundleID(bundleID)
        try APNsChannelRequests.checkChannelID(channelID)
        try APNsChannelRequests.checkRequestID(requestID)
        var headers = [
            (APNsHeaderName.channelID, channelID),
            (APNsHeaderName.pushType, APNsPushType.liveactivity.rawValue),
            (APNsHeaderName.priority, String(priority.rawValue)),
        ]
        if let expiration { headers.append((APNsHeaderName.expiration, String(expiration.unixSeconds))) }
        return APNsProviderRequest(method: "POST", path: APNsChannelRequests.broadcastPathPrefix + bundleID, headers: headers,
                                   body: payload, requestID: requestID)
    }
}

/// APNs accepted a broadcast (status 200).
public struct APNsBroadcastResponse: Sendable, Hashable {
    /// `apns-request-id`, as APNs echoed it.
    public var requestID: String
    /// The HTTP status: 200.
    public var status: Int
    /// The retry policy's attempts the broadcast took, the accepted one included.
    public var attempts: Int

    /// A response value, for tests and adapters.
    public init(requestID: String, status: Int = 200, attempts: Int = 1) {
        self.requestID = requestID
        self.status = status
        self.attempts = attempts
    }
}
