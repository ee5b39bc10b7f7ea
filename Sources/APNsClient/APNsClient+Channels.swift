import APNsCore

/// The channel management API (iOS 18 broadcast channels): create, read, delete and list a
/// bundle ID's channels on the environment's management host
/// (`APNsClientConfiguration.channelManagementProduction` / `channelManagementSandbox`),
/// with the client's credentials.
///
/// ```swift
/// let channel = try await client.createChannel(bundleID: "com.example.app", environment: .sandbox)
/// let ids = try await client.channelIDs(bundleID: "com.example.app", environment: .sandbox)
/// try await client.deleteChannel(channel.id, bundleID: "com.example.app", environment: .sandbox)
/// ```
///
/// Errors are `APNsClientError.rejected` with the status and `APNsReason` APNs answered
/// (`BadChannelId`, `ChannelNotRegistered`, …) and the `apns-request-id` in
/// `APNsRejection.requestID`; `.invalidAnswer` when a success answer lacks what Apple
/// documents.
extension APNsClient {
    /// Creates a Live Activity channel: `POST /1/apps/<bundleID>/channels`, answered 201
    /// with the new `apns-channel-id`.
    ///
    /// Sent once: a create that fails on its way (a 5xx, a connection lost after sending) is
    /// not repeated, since it may have made a channel; only a send the server did not process
    /// (GOAWAY, REFUSED_STREAM) goes again.
    ///
    /// - Parameters:
    ///   - messageStoragePolicy: what APNs keeps for offline devices (default: nothing).
    ///   - requestID: `apns-request-id`; nil for a generated UUID.
    public func createChannel(
        bundleID: String, messageStoragePolicy: APNsChannelStoragePolicy = .noMessageStored, environment: APNsEnvironment,
        requestID: String? = nil
    ) async throws(APNsClientError) -> APNsChannel {
        let request = try APNsChannelRequests.create(bundleID: bundleID, policy: messageStoragePolicy, requestID: requestID)
        let sent = try await send(request, environment: environment, management: true, retries: false)
        return APNsChannel(id: try APNsChannelRequests.createdChannelID(sent.answer.headers), messageStoragePolicy: messageStoragePolicy)
    }

    /// Reads channel `id`: `GET /1/apps/<bundleID>/channels` with `apns-channel-id`.
    public func channel(_ id: String, bundleID: String, environment: APNsEnvironment, requestID: String? = nil)
        async throws(APNsClientError) -> APNsChannel {
        let request = try APNsChannelRequests.channel("GET", id: id, bundleID: bundleID, requestID: requestID)
        let sent = try await send(request, environment: environment, management: true)
        return try APNsChannelRequests.channel(id: id, from: sent.answer.body)
    }

    /// Deletes channel `id`: `DELETE /1/apps/<bundleID>/channels` with `apns-channel-id`,
    /// answered 204.
    public func deleteChannel(_ id: String, bundleID: String, environment: APNsEnvironment, requestID: String? = nil)
        async throws(APNsClientError) {
        let request = try APNsChannelRequests.channel("DELETE", id: id, bundleID: bundleID, requestID: requestID)
        _ = try await send(request, environment: environment, management: true)
    }

    /// The ids of every channel of `bundleID` in `environment`: `GET /1/apps/<bundleID>/all-channels`.
    public func channelIDs(bundleID: String, environment: APNsEnvironment, requestID: String? = nil)
        async throws(APNsClientError) -> [String] {
        let request = try APNsChannelRequests.list(bundleID: bundleID, requestID: requestID)
        let sent = try await send(request, environment: environment, management: true)
        return try APNsChannelRequests.channelIDs(from: sent.answer.body)
    }

    /// Sends `broadcast` to every device subscribed to its channel:
    /// `POST /4/broadcasts/apps/<bundleID>` on the environment's APNs host, retried as a
    /// push is.
    ///
    /// - Returns: the `apns-request-id` APNs echoed.
    /// - Throws: `APNsClientError.rejected` with APNs' reason (`ChannelNotRegistered`,
    ///   `BadExpirationDate`, `PayloadTooLarge`, …) and `requestID`; as `send` otherwise.
    public func broadcast(_ broadcast: APNsBroadcast, environment: APNsEnvironment) async throws(APNsClientError) -> APNsBroadcastResponse {
        let sent = try await send(try broadcast.request(), environment: environment, management: false)
        return APNsBroadcastResponse(requestID: sent.requestID, status: sent.answer.status, attempts: sent.attempts)
    }
}
