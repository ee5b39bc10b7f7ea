/// Decides one push on one connection: accept it, or reject it with APNs' reason.
///
/// The mock's server does the HTTP/2 side (reading the request, answering, GOAWAY, the
/// stream limit) and tells observers; a handler only decides, as pushy's
/// `PushNotificationHandler` does. A ``PushHandlerFactory`` makes one handler per
/// connection, so a handler may keep what it learns about its connection (the built-in
/// ``ValidatingPushHandler`` keeps the connection's authentication); ``handle(_:)`` is
/// `mutating` so that a struct can too.
///
/// The server calls ``handle(_:)`` on the connection's event loop, one push at a time, for
/// every push on the connection; keep it quick, as it runs on the push path. Wrap the
/// built-in handler to change a few answers and keep APNs' rules for the rest:
///
/// ```swift
/// struct OnlyListedDevices: PushHandler {
///     let validating: ValidatingPushHandler
///     let devices: Set<DeviceToken>
///
///     func handle(_ push: PushRequest) -> PushDecision {
///         var decision = validating.handle(push)
///         if decision.isAccepted, let token = decision.details.deviceToken, !devices.contains(token) {
///             decision.verdict = .rejected(reason: .badDeviceToken, timestamp: nil, isFatal: false)
///         }
///         return decision
///     }
/// }
/// ```
public protocol PushHandler {
    /// Decides one push.
    ///
    /// - Parameter push: The push as the connection received it.
    /// - Returns: The answer and what the capture records about the push: accepted, or
    ///   the rejection's reason, its 410 timestamp and whether GOAWAY follows; and the
    ///   ``PushDetails`` learned, lint warnings included.
    mutating func handle(_ push: PushRequest) -> PushDecision
}
