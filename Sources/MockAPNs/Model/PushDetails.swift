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
    public var rawDeviceToken: String? { didSet { hexDevicePath = CapturePlainTextHint() } }
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
    public var tokenHeader: JSONValue? { didSet { encodedToken = CaptureEncodingHint() } }
    /// The provider token's decoded claims.
    public var tokenClaims: JSONValue? { didSet { encodedToken = CaptureEncodingHint() } }
    /// SHA-256 of the whole token in hex, first 16 characters: tells tokens apart without storing them.
    public var tokenFingerprint: String? { didSet { encodedToken = CaptureEncodingHint() } }
    /// The team the connection authenticated as, if any.
    public var teamID: String?
    /// The key ID the push was verified with, if any.
    public var keyID: String?
    public var lintWarnings: [PushLintWarning]
    /// The capture's encoding of the token header, claims and fingerprint, when validation
    /// had it at hand; the capture copies it instead of encoding them again.
    var encodedToken = CaptureEncodingHint()
    /// The request path, when validation found it to be `/3/device/` and the hex digits of
    /// `rawDeviceToken`: the capture copies both without the escaper's scan.
    var hexDevicePath = CapturePlainTextHint()

    public init() {
        lintWarnings = []
    }

    /// Records that the strict parser accepted `bytes` as the payload, without building it.
    mutating func setPayload(parsedFrom bytes: [UInt8], maximumDepth: Int) {
        payloadStorage = LazyPayload(accepted: bytes, maximumDepth: maximumDepth)
    }
}
