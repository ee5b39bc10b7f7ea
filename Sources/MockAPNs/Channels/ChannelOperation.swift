/// What a channel management request asks for.
public enum ChannelOperation: String, Sendable, Hashable, CaseIterable {
    /// `POST /1/apps/<bundle ID>/channels`.
    case create
    /// `GET /1/apps/<bundle ID>/channels` with `apns-channel-id`.
    case read
    /// `DELETE /1/apps/<bundle ID>/channels` with `apns-channel-id`.
    case delete
    /// `GET /1/apps/<bundle ID>/all-channels`.
    case list
}
