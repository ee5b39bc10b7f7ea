/// A broadcast channel's `message-storage-policy`: whether APNs keeps the most recent
/// broadcast for devices that are offline.
public enum APNsChannelStoragePolicy: Int, Sendable, Hashable, CaseIterable {
    /// `0`: nothing is stored; a broadcast on such a channel must carry `apns-expiration: 0`.
    case noMessageStored = 0
    /// `1`: the most recent broadcast is kept (Apple: up to eight hours).
    case mostRecentMessageStored = 1

    /// The channel management API's only `push-type`, as Apple spells it in the body.
    public static let pushType = "LiveActivity"
}
