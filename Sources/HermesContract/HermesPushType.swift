/// The four events the agent-side plugin turns into a push (contract §1).
///
/// Each type fixes everything a push of that type may say: the generic copy is the only
/// title and body that may ever leave the agent, so no content can leak through them.
public enum HermesPushType: String, Sendable, Hashable, CaseIterable {
    /// The agent waits for the user to approve an action.
    case approval
    /// The agent asks the user a question (the `clarify` tool).
    case clarify
    /// A turn that ran longer than the duration gate finished.
    case complete
    /// The session ended in a genuine failure.
    case error

    /// The alert title the contract fixes for this type.
    public var title: String {
        switch self {
        case .approval: "Approval needed"
        case .clarify: "Input needed"
        case .complete: "Turn complete"
        case .error: "Hermes hit an error"
        }
    }

    /// The alert body the contract fixes for this type.
    public var body: String {
        switch self {
        case .approval: "Hermes needs your approval"
        case .clarify: "Hermes needs more information"
        case .complete: "Hermes finished the turn"
        case .error: "Hermes ran into a problem"
        }
    }

    /// The notification category, `HERMES_<TYPE>` (contract §3).
    public var category: String {
        // Spelled out: `uppercased()` is Unicode case mapping, and the gateway writes a
        // category into every payload.
        switch self {
        case .approval: "HERMES_APPROVAL"
        case .clarify: "HERMES_CLARIFY"
        case .complete: "HERMES_COMPLETE"
        case .error: "HERMES_ERROR"
        }
    }

    /// Whether the push carries `aps.badge`: only approvals drive the app's badge.
    public var carriesBadge: Bool { self == .approval }

    /// How long APNs should keep trying to deliver it, in seconds.
    ///
    /// The contract only says a pending approval is stale after about an hour. A question
    /// is as perishable; a finished turn or an error stays worth seeing for a day.
    public var expirationInterval: Int64 {
        switch self {
        case .approval, .clarify: 3_600
        case .complete, .error: 86_400
        }
    }

    /// Finds the type whose `category` is `category`.
    public init?(category: String) {
        guard let type = Self.allCases.first(where: { $0.category == category }) else { return nil }
        self = type
    }
}
