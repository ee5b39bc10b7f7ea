/// What APNs keeps of a broadcast channel's messages for devices that are offline
/// (`message-storage-policy`, chosen when the channel is created).
///
/// ```swift
/// let channel = try await client.createChannel(bundleID: "com.example.app", messageStoragePolicy: .mostRecentMessage,
///                                              environment: .sandbox)
/// ```
public enum APNsMessageStoragePolicy: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// 0: nothing is stored; a broadcast reaches only the devices online then, and takes
    /// `apns-expiration` 0 only.
    case noStorage = 0
    /// 1: APNs keeps the most recent message (up to 8 hours, Apple says) for devices offline.
    case mostRecentMessage = 1

    /// `no-storage` or `most-recent-message`, as push-send prints it.
    public var description: String {
        switch self {
        case .noStorage: "no-storage"
        case .mostRecentMessage: "most-recent-message"
        }
    }
}
