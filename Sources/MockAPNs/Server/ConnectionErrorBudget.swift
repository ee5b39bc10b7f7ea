/// How many rejected pushes a connection may have before the mock ends it, as APNs drops
/// connections that pile up errors (docs/fidelity.md, "Connections").
///
/// Apple gives no count or window, so there is none by default. With a limit, each answer
/// 400-499 other than 410 costs one; the answer that uses the budget up is followed by
/// GOAWAY with its own reason as debug data, as for a fatal reason. 410 (`Unregistered`,
/// `ExpiredToken`) says the device is gone, not that the provider erred, and APNs does not
/// count it; 5xx answers are APNs' own trouble. Fault statuses count like any other answer.
struct ConnectionErrorBudget: Sendable, Hashable {
    /// Rejections a connection may have; nil: no budget.
    let limit: Int?

    /// What one connection has spent.
    struct State: Sendable {
        var spent = 0
    }

    /// Whether `status` costs a connection one from its budget.
    static func counts(_ status: Int) -> Bool {
        (400...499).contains(status) && status != 410
    }

    /// Charges `status` to the connection; true when this answer uses the budget up, so the
    /// connection is to end after it. Later answers are not charged again.
    func charge(_ status: Int, state: inout State) -> Bool {
        guard let limit, state.spent < limit, Self.counts(status) else { return false }
        state.spent += 1
        return state.spent == limit
    }
}
