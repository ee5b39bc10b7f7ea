import APNsCore
import HTTPTransport

/// What the server must do to one push because of fault rules, and which rules fired.
///
/// Each part is independent: the server waits `delay`, then gives the stream `response`
/// (or validates as usual when it is nil), then applies `connectionAction`. A decision
/// with nothing fired is ``none``, and the server carries on as if faults did not exist.
public struct FaultDecision: Sendable, Hashable {
    /// How the push's stream is answered.
    public enum Response: Sendable, Hashable {
        /// Answer with this status and reason; `timestamp` (milliseconds since 1970) is set for 410.
        case status(Int, reason: APNsReason, timestamp: Int64?)
        /// Reset the stream with this error code.
        case resetStream(HTTP2ErrorCode)
    }

    /// What happens to the connection after the stream is dealt with.
    public enum ConnectionAction: Sendable, Hashable {
        /// Send GOAWAY with this error code and debug data.
        case goAway(errorCode: HTTP2ErrorCode, debugData: [UInt8])
        /// Close the connection at once, without answering the push.
        case close
    }

    /// A rule that fired, as the capture records it.
    public struct FiredRule: Sendable, Hashable {
        /// The rule's id.
        public var id: String
        /// The rule's ``FaultRule/summary``.
        public var summary: String

        /// Creates a record of a fired rule.
        public init(id: String, summary: String) {
            self.id = id
            self.summary = summary
        }
    }

    /// How long to hold the answer back; zero for none.
    public var delay: Duration
    /// The stream's answer, or nil to validate and answer as usual.
    public var response: Response?
    /// What to do with the connection afterwards, if anything.
    public var connectionAction: ConnectionAction?
    /// The rules that fired, in the order they were evaluated.
    public var firedRules: [FiredRule]

    /// Creates a decision.
    public init(
        delay: Duration = .zero, response: Response? = nil, connectionAction: ConnectionAction? = nil,
        firedRules: [FiredRule] = []
    ) {
        self.delay = delay
        self.response = response
        self.connectionAction = connectionAction
        self.firedRules = firedRules
    }

    /// No fault: the push is handled normally.
    public static let none = FaultDecision()

    /// Whether no rule fired.
    public var isNone: Bool { firedRules.isEmpty }

    /// Whether the rules, not validation, decide the answer: a status, a reset stream or a
    /// closed connection. A delay or a GOAWAY after the answer leaves it validation's.
    public var decidesAnswer: Bool { response != nil || connectionAction == .close }
}
