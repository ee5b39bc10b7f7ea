import APNsCore
import Foundation
import StrictJSON

/// Everything the mock saw and answered for one request, accepted or rejected.
///
/// The provider token is never kept: `authorization` never enters ``headers``, and only the
/// token's decoded header, claims and fingerprint remain (see ``CaptureTokenInfo``).
/// Records round-trip exactly through the JSON Lines file format of `docs/capture-format.md`.
///
/// ```swift
/// let record = CaptureRecord(
///     sequence: 0, receivedAtMicroseconds: 1_795_958_793_123_456, environment: .sandbox, connectionID: 1,
///     method: "POST", path: "/3/device/\(token.hex)", headers: ["apns-topic": "com.example.app"],
///     deviceToken: token, payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8),
///     outcome: PushOutcome(status: 200, reason: nil, apnsID: id, uniqueID: nil, timestamp: nil, connectionAction: .none))
/// store.record(record)
/// ```
public struct CaptureRecord: Sendable, Hashable {
    /// The store's sequence number, from 1, assigned by ``CaptureStore/record(_:)``; 0 until then.
    public var sequence: UInt64
    /// When the request arrived, in whole microseconds since 1970 (the file's resolution).
    public var receivedAtMicroseconds: Int64
    /// The listener the request arrived on.
    public var environment: APNsEnvironment
    /// The connection it arrived on.
    public var connectionID: UInt64
    /// `:method`.
    public var method: String
    /// `:path`, as sent.
    public var path: String
    /// Regular headers in wire order, without `authorization`.
    public var headers: CaptureHeaders
    /// The provider token's decoded parts, or nil when the request had no `authorization` header.
    public var token: CaptureTokenInfo?
    /// The device token from the path, when validation parsed it.
    public var deviceToken: DeviceToken?
    /// The topic validation settled on.
    public var topic: String?
    /// `apns-push-type`, or the type the mock inferred when none was sent.
    public var pushType: APNsPushType?
    /// `apns-priority`, or 10 when none was sent.
    public var priority: APNsPriority?
    /// `apns-expiration` in UNIX seconds.
    public var expiration: Int64?
    /// `apns-collapse-id`.
    public var collapseID: String?
    /// The team the connection authenticated as.
    public var teamID: String?
    /// The key the push was verified with.
    public var keyID: String?
    /// The body bytes as received.
    public var payload: [UInt8] {
        get { storedPayload.bytes }
        set { storedPayload = CapturedPayload(newValue) }
    }
    var storedPayload: CapturedPayload
    /// The answer: status, reason, `apns-id`, `apns-unique-id`, 410 timestamp, and what the
    /// connection did after it.
    public var outcome: PushOutcome
    /// What the mock would tell a developer about the push, though APNs accepts it.
    public var lintWarnings: [PushLintWarning]
    /// The fault rules that fired for this request, as `<id>: <summary>`.
    public var faults: [String]
    /// A broadcast's `apns-channel-id`; nil for a device push.
    public var channelID: String?

    /// Builds a record field by field.
    public init(
        sequence: UInt64 = 0, receivedAtMicroseconds: Int64, environment: APNsEnvironment, connectionID: UInt64,
        method: String, path: String, headers: CaptureHeaders, token: CaptureTokenInfo? = nil,
        deviceToken: DeviceToken? = nil, topic: String? = nil, pushType: APNsPushType? = nil,
        priority: APNsPriority? = nil, expiration: Int64? = nil, collapseID: String? = nil, teamID: String? = nil,
        keyID: String? = nil, payload: [UInt8], outcome: PushOutcome, lintWarnings: [PushLintWarning] = [],
        faults: [String] = []
    ) {
        self.init(
            sequence: sequence, receivedAtMicroseconds: receivedAtMicroseconds, environment: environment,
            connectionID: connectionID, method: method, path: path, headers: headers, token: token,
            deviceToken: deviceToken, topic: topic, pushType: pushType, priority: priority, expiration: expiration,
            collapseID: collapseID, teamID: teamID, keyID: keyID, payload: CapturedPayload(payload), outcome: outcome,
            lintWarnings: lintWarnings, faults: faults)
    }

    init(
        sequence: UInt64, receivedAtMicroseconds: Int64, environment: APNsEnvironment, connectionID: UInt64,
        method: String, path: String, headers: CaptureHeaders, token: CaptureTokenInfo?, deviceToken: DeviceToken?,
        topic: String?, pushType: APNsPushType?, priority: APNsPriority?, expiration: Int64?, collapseID: String?,
        teamID: String?, keyID: String?, payload: CapturedPayload, outcome: PushOutcome,
        lintWarnings: [PushLintWarning], faults: [String]
    ) {
        self.sequence = sequence
        self.receivedAtMicroseconds = receivedAtMicroseconds
        self.environment = environment
        self.connectionID = connectionID
        self.method = method
        self.path = path
        self.headers = headers
        self.token = token
        self.deviceToken = deviceToken
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.teamID = teamID
        self.keyID = keyID
        storedPayload = payload
        self.outcome = outcome
        self.lintWarnings = lintWarnings
        self.faults = faults
    }

    /// The token text of the path as sent (what follows `/3/device/`, in the client's case),
    /// even when it is not a token; nil for a path of another shape.
    public var rawDeviceToken: String? {
        guard path.hasPrefix(Self.devicePathPrefix), path.utf8.count > Self.devicePathPrefix.utf8.count else { return nil }
        return String(path.dropFirst(Self.devicePathPrefix.count))
    }

    private static let devicePathPrefix = "/3/device/"

    /// The body parsed as JSON (strictly, nested at most 512 levels deep); nil when it is
    /// not JSON.
    public var parsedPayload: JSONValue? { storedPayload.parsed }

    /// Notes that StrictJSON's parser has just accepted ``payload``, these very bytes, with a
    /// nesting limit of `maximumDepth`, so that encoding the record does not check them
    /// again. A limit deeper than the capture's own (512) notes nothing: such a body need not
    /// count as JSON here.
    ///
    /// For the mock, whose validation checks every body: the record is then the one value it
    /// hands the capture, with what validation established about it.
    package mutating func notePayloadAcceptedAsJSON(maximumDepth: Int) {
        guard maximumDepth <= CaptureFormat.maximumPayloadDepth else { return }
        storedPayload = CapturedPayload(storedPayload.bytes, knowledge: .json)
    }

    /// When the request arrived.
    public var receivedAt: Date {
        Date(timeIntervalSince1970: Double(receivedAtMicroseconds) / 1_000_000)
    }

    /// A date in whole microseconds since 1970, rounded to nearest; 0 for a date that has none.
    public static func microseconds(since1970 date: Date) -> Int64 {
        let value = clampedMicroseconds(since1970: date)
        // Beyond ±2^62 µs (±146,000 years) is no real arrival time.
        return abs(value) == 1 << 62 ? 0 : value
    }

    /// A date in whole microseconds since 1970, rounded to nearest, held to ±2^62 µs so that
    /// a bound far in the future stays after every arrival (and one far past, before).
    static func clampedMicroseconds(since1970 date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1_000_000).rounded()
        if value.isNaN { return 0 }
        return Int64(min(max(value, -0x1p62), 0x1p62))
    }
}
