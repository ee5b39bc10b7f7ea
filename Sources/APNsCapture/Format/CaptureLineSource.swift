import APNsCore
import HTTPTransport

/// What a capture line is written from: a ``CaptureRecord``, or a push as the server has
/// just answered it (``AnsweredPush``), which the store encodes without building a record.
///
/// The encoder is generic over it, so both are written by the same code and each is
/// specialized: a record's line and an answered push's line are the same bytes.
package protocol CaptureLineSource {
    var receivedAtMicroseconds: Int64 { get }
    var environment: APNsEnvironment { get }
    var connectionID: UInt64 { get }
    var method: String { get }
    var path: String { get }
    /// Calls `body` for each header that is captured, in wire order: all but `authorization`.
    func forEachCapturedHeader(_ body: (HTTPHeaders.Field) -> Void)
    /// How many headers there are at most, for sizing the line.
    var headerCountEstimate: Int { get }
    var token: CaptureTokenInfo? { get }
    /// `token` already encoded, when validation supplied it; empty when there is no token.
    var encodedToken: CaptureEncodingHint { get }
    var deviceToken: DeviceToken? { get }
    var rawDeviceToken: String? { get }
    /// Whether `path` and `rawDeviceToken` are known to need no escaping (`/3/device/` and
    /// hex digits, as validation found), so the encoder copies them without a scan.
    var devicePathIsHex: Bool { get }
    var topic: String? { get }
    var pushType: APNsPushType? { get }
    var priority: APNsPriority? { get }
    var expiration: Int64? { get }
    var collapseID: String? { get }
    var teamID: String? { get }
    var keyID: String? { get }
    var payload: [UInt8] { get }
    var parsedPayloadStorage: LazyPayload { get }
    var outcome: PushOutcome { get }
    var lintWarnings: [PushLintWarning] { get }
    var faults: [String] { get }
}

extension CaptureRecord: CaptureLineSource {
    package func forEachCapturedHeader(_ body: (HTTPHeaders.Field) -> Void) {
        for field in headers { body(field) }
    }

    package var headerCountEstimate: Int { headers.count }

    /// A record may come from anywhere (a file, a test), so its text is always escaped.
    package var devicePathIsHex: Bool { false }
}
