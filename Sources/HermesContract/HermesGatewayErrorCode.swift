import StrictJSON

/// The `error` value of the gateway's JSON error bodies (contract §2.3), which the
/// plugin and our agent-side sender act on.
public enum HermesGatewayErrorCode: String, Sendable, Hashable, CaseIterable {
    /// 400: the request breaks the contract; give up.
    case invalidRequest = "invalid_request"
    /// 403: the capability was not issued for this device token; re-register once.
    case invalidCapability = "invalid_capability"
    /// 403: the HMAC does not match the canonical string under the shared secret.
    case invalidHMAC = "invalid_hmac"
    /// 403: the request used an authorization mode this gateway has turned off.
    case authModeDisabled = "auth_mode_disabled"
    /// 403: neither `hmac` nor `capability` was sent.
    case missingAuthorization = "missing_authorization"
    /// 400: APNs refused the device token itself (`BadDeviceToken`, `DeviceTokenNotForTopic`);
    /// give up on this push. Not 410: a gateway pointed at the wrong host or topic would
    /// otherwise make every plugin prune every device.
    case deviceTokenRejected = "device_token_rejected"
    /// 410: APNs says the device token is gone; prune it.
    case deviceTokenInactive = "device_token_inactive"
    /// 429: the gateway's own rate limit; retry later.
    case rateLimited = "rate_limited"
    /// 502: APNs rejected the push for a reason the plugin cannot fix (logged at the gateway).
    case apnsRejected = "apns_rejected"
    /// 503: APNs could not be reached or kept failing after bounded retries.
    case apnsUnavailable = "apns_unavailable"
    /// 404: no such endpoint.
    case notFound = "not_found"
    /// 405: the endpoint exists, the method does not.
    case methodNotAllowed = "method_not_allowed"
    /// 413: the body is larger than the gateway reads.
    case bodyTooLarge = "body_too_large"
    /// 431: the request's header list is larger than the gateway reads.
    case headersTooLarge = "headers_too_large"
    /// 408: the request did not arrive whole (headers and body) in time.
    case requestTimeout = "request_timeout"
    /// 505: an HTTP version the gateway does not speak (HTTP/1.x other than 1.0 and 1.1).
    case httpVersionNotSupported = "http_version_not_supported"

    /// The HTTP status the gateway answers with this code.
    public var status: Int {
        switch self {
        case .invalidRequest, .deviceTokenRejected: 400
        case .invalidCapability, .invalidHMAC, .authModeDisabled, .missingAuthorization: 403
        case .deviceTokenInactive: 410
        case .rateLimited: 429
        case .apnsRejected: 502
        case .apnsUnavailable: 503
        case .notFound: 404
        case .methodNotAllowed: 405
        case .bodyTooLarge: 413
        case .headersTooLarge: 431
        case .requestTimeout: 408
        case .httpVersionNotSupported: 505
        }
    }

    /// `{"error":"<code>","message":"<message>"}`, the gateway's error body.
    public func body(message: String) -> [UInt8] {
        var output: [UInt8] = []
        JSONWriter.writeObject([("error", .string(rawValue)), ("message", .string(message))], into: &output)
        return output
    }
}
