import APNsCore
import HermesContract
import StrictJSON

/// What the gateway answers the plugin for an APNs result (contract §2.3), and the
/// reasoning for the reasons the contract does not name.
///
/// | APNs | gateway | plugin does |
/// |---|---|---|
/// | 200 | 200 `{"apns_id":…}` | done |
/// | 410, whatever the reason (`Unregistered`, `ExpiredToken`, one this version does not know) | 410 `device_token_inactive` | prunes the token |
/// | 400 `BadDeviceToken`, `DeviceTokenNotForTopic` | 400 `device_token_rejected` | gives up on this push |
/// | 429 `TooManyRequests` (after retries) | 429 `rate_limited` | gives up; the device is flooded |
/// | 5xx, unreachable (after retries), no answer within the APNs timeout | 503 `apns_unavailable` | retries, bounded |
/// | 429 `TooManyProviderTokenUpdates` | 503 `apns_unavailable` | retries: a later token works |
/// | any other 4xx, or a reason this version does not know with a 4xx | 502 `apns_rejected` | retries, bounded; the gateway is misconfigured |
///
/// A token APNs rejects as malformed or for another topic is not pruned: those answers
/// also come from a gateway pointed at the wrong host or bundle id, and pruning then would
/// silently unregister every device of every user.
public struct GatewayOutcome: Sendable, Hashable {
    /// The HTTP status for the plugin.
    public var status: Int
    /// The error code, nil on success.
    public var code: HermesGatewayErrorCode?
    /// The JSON body.
    public var body: [UInt8]
    /// `retry-after` seconds, on the gateway's own 429.
    public var retryAfter: Int?
    /// `allow`, on 405.
    public var allow: String?
    /// How long APNs took for the push (hand-off to final answer, retries included), sent
    /// as `server-timing: apns;dur=<ms>`; nil when the request never reached APNs.
    public var apnsTime: Duration?

    /// The outcome for `result`.
    public init(_ result: APNsDeliveryResult) {
        switch result {
        case .accepted(let apnsID):
            var output: [UInt8] = []
            output.reserveCapacity(16 + apnsID.utf8.count)
            output.append(contentsOf: #"{"apns_id":"#.utf8)
            JSONWriter.writeString(apnsID, into: &output)
            output.append(UInt8(ascii: "}"))
            self.init(status: 200, code: nil, body: output)
        case .rejected(let status, let reason, _):
            let code = Self.code(for: reason, status: status)
            self.init(code: code, message: Self.message(for: reason, code: code))
        case .unreachable:
            self.init(code: .apnsUnavailable, message: "APNs could not be reached or did not answer in time; try again later")
        }
    }

    /// An error outcome with `code`'s status.
    public init(code: HermesGatewayErrorCode, message: String) {
        self.init(status: code.status, code: code, body: code.body(message: message))
    }

    private init(status: Int, code: HermesGatewayErrorCode?, body: [UInt8]) {
        self.status = status
        self.code = code
        self.body = body
    }

    /// The gateway's code for an APNs rejection; see the type's table.
    /// A 410 is APNs saying the device token is gone, whatever its reason: the contract maps
    /// it to 410 by status, and the plugin prunes the token rather than retrying forever.
    /// Otherwise the reason decides, and for a reason this version does not know, `status`:
    /// 5xx is transient.
    public static func code(for reason: APNsReason, status: Int) -> HermesGatewayErrorCode {
        if status == 410 { return .deviceTokenInactive }
        return switch reason {
        case .unregistered, .expiredToken: .deviceTokenInactive
        case .badDeviceToken, .deviceTokenNotForTopic: .deviceTokenRejected
        case .tooManyRequests: .rateLimited
        case .tooManyProviderTokenUpdates, .internalServerError, .serviceUnavailable, .shutdown: .apnsUnavailable
        case .unknown: status >= 500 ? .apnsUnavailable : .apnsRejected
        default: .apnsRejected
        }
    }

    private static func message(for reason: APNsReason, code: HermesGatewayErrorCode) -> String {
        switch code {
        case .deviceTokenInactive: "APNs says the device token is no longer active (\(reason.wireValue)); remove it"
        case .deviceTokenRejected: "APNs refused the device token (\(reason.wireValue))"
        case .rateLimited: "APNs is limiting pushes to this device (\(reason.wireValue)); try later"
        case .apnsUnavailable: "APNs failed transiently (\(reason.wireValue)); try again later"
        default: "APNs rejected the push (\(reason.wireValue)); the gateway's configuration needs attention"
        }
    }
}
