import APNsCore
import HTTPTransport

/// What a fault rule does to a push it fires on.
public enum FaultAction: Sendable, Hashable {
    /// Answer with this status and reason instead of validating. A 410 carries the time
    /// the rule fired as its `timestamp`.
    case status(Int, reason: APNsReason)
    /// Hold the answer back this long. The server delays; other streams carry on. Delays
    /// of several rules that fire on one push add up.
    case delay(Duration)
    /// Reset the push's stream with RST_STREAM instead of answering.
    case resetStream(HTTP2ErrorCode)
    /// Close the connection without answering and without GOAWAY.
    case closeConnection
    /// Answer the push (normally, or as another rule says), then send GOAWAY with this
    /// error code and, when `reason` is set, `{"reason":"…"}` as debug data, as APNs does.
    case goAway(errorCode: HTTP2ErrorCode, reason: APNsReason?)
    /// Answer 429 `TooManyRequests` once a device token is over this limit.
    case rateLimit(FaultRateLimit)
    /// Answer every push with 503 and this reason (`ServiceUnavailable` or `Shutdown`).
    /// Unavailable rules are evaluated before all others, whatever their position.
    case unavailable(APNsReason)

    /// The error code a `reset_stream` rule uses when JSON names none.
    public static let defaultResetErrorCode = HTTP2ErrorCode.internalError
    /// The error code a `go_away` rule uses when JSON names none: APNs sends NO_ERROR.
    public static let defaultGoAwayErrorCode = HTTP2ErrorCode.noError

    /// The reasons an `unavailable` rule may answer with.
    public static let unavailableReasons: [APNsReason] = [.serviceUnavailable, .shutdown]
}

extension FaultAction: CustomStringConvertible {
    /// A short description for the capture, such as `status 500 InternalServerError`.
    public var description: String {
        switch self {
        case .status(let status, let reason): "status \(status) \(reason.wireValue)"
        case .delay(let duration): "delay \(duration.faultMilliseconds) ms"
        case .resetStream(let code): "reset stream \(code.faultName ?? String(code.rawValue))"
        case .closeConnection: "close connection"
        case .goAway(let code, let reason):
            "GOAWAY \(code.faultName ?? String(code.rawValue))" + (reason.map { " \($0.wireValue)" } ?? "")
        case .rateLimit(let limit):
            "rate limit \(limit.limit) per \(limit.window.faultMilliseconds) ms (\(limit.kind.rawValue))"
        case .unavailable(let reason): "unavailable 503 \(reason.wireValue)"
        }
    }
}

extension Duration {
    /// Whole milliseconds, the unit fault rules use.
    var faultMilliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
