import APNsCore
import Foundation

/// One broadcast channel, as the channel management API created it: an id, the app it
/// belongs to, the environment it lives in, and its storage policy.
public struct BroadcastChannel: Sendable, Hashable {
    /// The `apns-channel-id`: base64 text.
    public var id: String
    /// The app whose Live Activities subscribe to it.
    public var bundleID: String
    /// The one environment it exists in.
    public var environment: APNsEnvironment
    public var storagePolicy: APNsChannelStoragePolicy
    /// When it was created.
    public var createdAt: Date

    public init(id: String, bundleID: String, environment: APNsEnvironment, storagePolicy: APNsChannelStoragePolicy,
                createdAt: Date = Date()) {
        self.id = id
        self.bundleID = bundleID
        self.environment = environment
        self.storagePolicy = storagePolicy
        self.createdAt = createdAt
    }
}
