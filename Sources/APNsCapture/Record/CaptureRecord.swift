import APNsCore
import Foundation
import HTTPTransport
import StrictJSON

/// Everything the mock saw and answered for one request, accepted or rejected.
///
/// The provider token is never kept: the `authorization` header is dropped, and only the
/// token's decoded header, claims and fingerprint remain (see ``CaptureTokenInfo``).
/// Records round-trip exactly through the JSON Lines file format of `docs/capture-format.md`.
///
/// ```swift
/// let record = CaptureRecord(request: request, details: details, outcome: outcome, faults: [])
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
    /// `:path`.
    public var path: String
    /// Regular headers in wire order, without `authorization`.
    public var headers: HTTPHeaders
    /// The provider token's decoded parts, or nil when the request had no `authorization` header.
    public var token: CaptureTokenInfo? { didSet { encodedToken = CaptureEncodingHint() } }
    /// `token` already encoded, when validation supplied it.
    package var encodedToken = CaptureEncodingHint()
    /// The device token from the path, if it parsed.
    public var deviceToken: DeviceToken?
    /// The raw device token text from the path, even when it did not parse.
    public var rawDeviceToken: String?
    /// The topic validation settled on.
    public var topic: String?
    public var pushType: APNsPushType?
    public var priority: APNsPriority?
    /// `apns-expiration` in UNIX seconds.
    public var expiration: Int64?
    public var collapseID: String?
    public var teamID: String?
    public var keyID: String?
    /// The body bytes as received.
    public var payload: [UInt8]
    /// The body as JSON, when validation parsed it. A record from the server keeps the
    /// accepted bytes and parses them on each read of this property.
    public var parsedPayload: JSONValue? {
        get { parsedPayloadStorage.value }
        set { parsedPayloadStorage = LazyPayload(newValue) }
    }
    package var parsedPayloadStorage: LazyPayload
    /// The answer: status, reason, `apns-id`, `apns-unique-id`, 410 timestamp.
    public var outcome: PushOutcome
    public var lintWarnings: [PushLintWarning]
    /// Identifiers of the faults that fired for this request, as the server names them.
    public var faults: [String]

    /// Builds a record field by field, as the file reader does.
    public init(
        sequence: UInt64, receivedAtMicroseconds: Int64, environment: APNsEnvironment, connectionID: UInt64,
        method: String, path: String, headers: HTTPHeaders, token: CaptureTokenInfo?, deviceToken: DeviceToken?,
        rawDeviceToken: String?, topic: String?, pushType: APNsPushType?, priority: APNsPriority?,
        expiration: Int64?, collapseID: String?, teamID: String?, keyID: String?, payload: [UInt8],
        parsedPayload: JSONValue?, outcome: PushOutcome, lintWarnings: [PushLintWarning], faults: [String]
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
        self.rawDeviceToken = rawDeviceToken
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.teamID = teamID
        self.keyID = keyID
        self.payload = payload
        parsedPayloadStorage = LazyPayload(parsedPayload)
        self.outcome = outcome
        self.lintWarnings = lintWarnings
        self.faults = faults
    }

    /// When the request arrived.
    public var receivedAt: Date {
        Date(timeIntervalSince1970: Double(receivedAtMicroseconds) / 1_000_000)
    }

    /// A date in whole microseconds since 1970, rounded to nearest; 0 for a date that has none.
    package static func microseconds(since1970 date: Date) -> Int64 {
        let value = clampedMicroseconds(since1970: date)
        // Beyond ±2^62 µs (±146,000 years) is no real arrival time.
        return abs(value) == 1 << 62 ? 0 : value
    }

    /// A date in whole microseconds since 1970, rounded to nearest, held to ±2^62 µs so that
    /// a bound far in the future stays after every arrival (and one far past, before).
    package static func clampedMicroseconds(since1970 date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1_000_000).rounded()
        if value.isNaN { return 0 }
        return Int64(min(max(value, -0x1p62), 0x1p62))
    }
}
