import APNsCore
import StrictJSON

/// What validation learned about a push, as far as it got before accepting or rejecting it.
///
/// The capture records this for every request, accepted or rejected, so fields stay nil
/// when validation stopped before reaching them.
public struct PushDetails: Sendable, Hashable {
    /// The device token from the path, if it parsed.
    public var deviceToken: DeviceToken?
    /// The raw token text from the path, even when it did not parse.
    public var rawDeviceToken: String?
    /// `apns-topic`, or the certificate's topic when certificate auth supplied it.
    public var topic: String?
    public var pushType: APNsPushType?
    public var priority: APNsPriority?
    /// `apns-expiration` in UNIX seconds.
    public var expiration: Int64?
    public var collapseID: String?
    /// `apns-id` when it is a canonical UUID, which APNs echoes in its answer.
    public var messageID: String?
    /// The payload, when it parsed as JSON. Validation keeps the accepted bytes and parses
    /// them on each read of this property.
    public var payload: JSONValue? {
        get { payloadStorage.value }
        set { payloadStorage = LazyPayload(newValue) }
    }
    var payloadStorage = LazyPayload(nil)
    /// The provider token's decoded JOSE header, never its signature.
    public var tokenHeader: JSONValue?
    /// The provider token's decoded claims.
    public var tokenClaims: JSONValue?
    /// SHA-256 of the whole token in hex, first 16 characters: tells tokens apart without storing them.
    public var tokenFingerprint: String?
    /// The team the connection authenticated as, if any.
    public var teamID: String?
    /// The key ID the push was verified with, if any.
    public var keyID: String?
    public var lintWarnings: [PushLintWarning]
    /// For a broadcast (`/4/broadcasts/apps/<bundle ID>`): the bundle ID of its path, once
    /// the path parsed; nil for a device push.
    public var broadcastBundleID: String?
    /// A broadcast's `apns-channel-id`, as sent.
    public var channelID: String?

    /// Whether the request went to the broadcast path.
    public var isBroadcast: Bool { broadcastBundleID != nil }

    public init() {
        lintWarnings = []
    }

    /// Records that the strict parser accepted `bytes` as the payload, without building it.
    mutating func setPayload(parsedFrom bytes: [UInt8], maximumDepth: Int) {
        payloadStorage = LazyPayload(accepted: bytes, maximumDepth: maximumDepth)
    }
}
