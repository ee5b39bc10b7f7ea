import APNsCore

extension PushOutcome {
    /// A rejected push with the status APNs pairs with `reason` (431 and 408 for the mock's
    /// ``APNsReason/requestHeaderFieldsTooLarge`` and ``APNsReason/requestTimeout``, 500 for
    /// another reason APNs does not define).
    public static func rejected(
        _ reason: APNsReason, apnsID: String, uniqueID: String?, timestamp: Int64? = nil,
        connectionAction: ConnectionAction = .none, explanation: String? = nil
    ) -> PushOutcome {
        PushOutcome(status: reason.mockStatus, reason: reason, apnsID: apnsID, uniqueID: uniqueID,
                    timestamp: timestamp, connectionAction: connectionAction, explanation: explanation)
    }
}
