import APNsCore

/// A broadcast channel, as the channel management API describes it.
public struct APNsChannel: Sendable, Hashable {
    /// `apns-channel-id`: base64 text APNs chose when the channel was created; broadcasts
    /// and Live Activities (`input-push-channel`) name the channel by it.
    public var id: String
    /// What APNs keeps for devices that are offline.
    public var messageStoragePolicy: APNsChannelStoragePolicy
    /// `push-type`: `LiveActivity` (`APNsChannelStoragePolicy.pushType`), the only type
    /// channels carry.
    public var pushType: String

    /// A channel value, for tests and adapters.
    public init(id: String, messageStoragePolicy: APNsChannelStoragePolicy, pushType: String = APNsChannelStoragePolicy.pushType) {
        self.id = id
        self.messageStoragePolicy = messageStoragePolicy
        self.pushType = pushType
    }
}
