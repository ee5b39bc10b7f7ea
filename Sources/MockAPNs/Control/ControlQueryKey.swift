/// The control API's query parameter names, defined once (docs/control-api.md).
enum ControlQueryKey {
    static let deviceToken = "device_token"
    static let deviceTokenPrefix = "device_token_prefix"
    static let pushType = "push_type"
    static let environment = "environment"
    static let uniqueID = "unique_id"
    static let topic = "topic"
    static let outcome = "outcome"
    static let reason = "reason"
    static let apnsID = "apns_id"
    static let since = "since"
    static let until = "until"
    static let limit = "limit"
    static let count = "count"
    static let timeout = "timeout"
    static let profile = "profile"
    static let acceptUnknownDevices = ConfigurationKey.acceptUnknownDevices

    /// The filters `GET /pushes` and `GET /pushes/wait` share.
    static let filters = [deviceToken, deviceTokenPrefix, topic, pushType, environment, outcome, reason, apnsID, uniqueID, since, until]
}
