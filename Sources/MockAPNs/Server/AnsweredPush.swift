import APNsCore
import Foundation
import HTTPTransport
import JWTVerify

/// A push as the server answered it: the request, validation's findings, the answer and the
/// faults that fired. The capture store encodes its line straight from these, without
/// building a ``CaptureRecord``; `CaptureRecord(request:details:outcome:faults:)` reads the
/// same view, so a record and a line hold the same fields.
///
/// The provider token never reaches a line or a record: the `authorization` header is
/// skipped, and only the token's decoded header, claims and fingerprint are kept.
struct AnsweredPush: CaptureLineSource {
    let request: PushRequest
    let details: PushDetails
    let outcome: PushOutcome
    let faults: [String]

    var receivedAtMicroseconds: Int64 { CaptureRecord.microseconds(since1970: request.receivedAt) }
    var environment: APNsEnvironment { request.environment }
    var connectionID: UInt64 { request.connectionID }
    var method: String { request.method }
    var path: String { request.path }
    var headerCountEstimate: Int { request.headers.count }

    func forEachCapturedHeader(_ body: (HTTPHeaders.Field) -> Void) {
        // The one place the credential could leak into a capture, so it never gets in.
        for field in request.headers where !Self.isAuthorization(field.name) { body(field) }
    }

    /// Whether a token was presented or validation decoded one.
    var hasToken: Bool {
        details.tokenHeader != nil || details.tokenClaims != nil || details.tokenFingerprint != nil
            || request.headers.contains { Self.isAuthorization($0.name) }
    }

    var token: CaptureTokenInfo? {
        guard hasToken else { return nil }
        return CaptureTokenInfo(header: details.tokenHeader, claims: details.tokenClaims, fingerprint: details.tokenFingerprint)
    }

    var encodedToken: CaptureEncodingHint {
        details.encodedToken.bytes != nil && hasToken ? details.encodedToken : CaptureEncodingHint()
    }

    var deviceToken: DeviceToken? { details.deviceToken }
    var rawDeviceToken: String? { details.rawDeviceToken }
    var devicePathIsHex: Bool { details.hexDevicePath.vouches(for: request.path) }
    var topic: String? { details.topic }
    var pushType: APNsPushType? { details.pushType }
    var priority: APNsPriority? { details.priority }
    var expiration: Int64? { details.expiration }
    var collapseID: String? { details.collapseID }
    var teamID: String? { details.teamID }
    var keyID: String? { details.keyID }
    var payload: [UInt8] { request.body }
    var parsedPayloadStorage: LazyPayload { details.payloadStorage }
    var lintWarnings: [PushLintWarning] { details.lintWarnings }

    private static func isAuthorization(_ name: String) -> Bool {
        name.equalsIgnoringASCIICase(APNsHeaderName.authorization)
    }
}
