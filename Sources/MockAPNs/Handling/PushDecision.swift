import APNsCore

/// What a ``PushHandler`` decided for one push, and everything it learned on the way: what
/// the server answers, and what the capture records.
public struct PushDecision: Sendable, Hashable {
    /// Accept, or reject with APNs' reason.
    public enum Verdict: Sendable, Hashable {
        /// 200.
        case accepted
        /// The reason (which carries its status), the 410 `timestamp` in milliseconds
        /// since 1970 for `Unregistered`, and whether the server must follow the answer
        /// with GOAWAY and close the connection.
        case rejected(reason: APNsReason, timestamp: Int64?, isFatal: Bool)
    }

    /// What was learned, filled as far as validation got; lint warnings included. The
    /// capture records it for every push, accepted or rejected.
    public var details: PushDetails
    public var verdict: Verdict
    /// Why the push was rejected, in one sentence: the outcome's `explanation`, which the
    /// capture, the log line and push-inspect show; nil when accepted. Never in APNs' body,
    /// where only the reason goes.
    public var message: String?
    /// Whether the connection counts as authenticated once this push is answered, which
    /// lifts its limit of one concurrent stream to the configured one (as APNs does after
    /// the first valid provider token; a client certificate authenticates a connection
    /// from its start). True unless the handler says otherwise, so a handler that does not
    /// model authentication gets the configured limit at its first answer.
    public var connectionAuthenticated: Bool

    public init(details: PushDetails, verdict: Verdict, message: String? = nil, connectionAuthenticated: Bool = true) {
        self.details = details
        self.verdict = verdict
        self.message = message
        self.connectionAuthenticated = connectionAuthenticated
    }

    /// Whether APNs would answer 200.
    public var isAccepted: Bool { verdict == .accepted }

    /// The rejection reason, or nil when accepted.
    public var reason: APNsReason? {
        if case .rejected(let reason, _, _) = verdict { return reason }
        return nil
    }

    /// The HTTP status APNs would answer.
    public var status: Int { reason.map(\.mockStatus) ?? 200 }

    /// The answer to send, with the ids the server chose.
    public func outcome(apnsID: String, uniqueID: String?) -> PushOutcome {
        switch verdict {
        case .accepted:
            return .accepted(apnsID: apnsID, uniqueID: uniqueID)
        case .rejected(let reason, let timestamp, let isFatal):
            return .rejected(
                reason, apnsID: apnsID, uniqueID: uniqueID, timestamp: timestamp,
                connectionAction: isFatal ? .goAway : .none, explanation: message)
        }
    }
}
