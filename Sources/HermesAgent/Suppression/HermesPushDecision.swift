import HermesContract

/// What the suppression policy decided about one hook event.
public enum HermesPushDecision: Sendable, Hashable {
    /// The event is not a trigger (or only updates the policy's state, like `pre_llm_call`).
    case notATrigger
    /// Push `type` about `sessionID` to every registered device.
    case send(HermesPushType, sessionID: String)
    /// A trigger, dropped for `reason`.
    case drop(HermesPushType, sessionID: String, reason: HermesDropReason)
}

/// Why a trigger was dropped, in the order the gates run (cheapest first).
public enum HermesDropReason: String, Sendable, Hashable, CaseIterable {
    /// No device is registered: there is no one to tell.
    case noDevices = "no_devices"
    /// A live client is viewing the session: the user sees it already.
    case liveClientViewing = "live_client_viewing"
    /// A `clarify` already pushed for this turn; its trailing `complete` would be noise.
    case clarifiedThisTurn = "clarified_this_turn"
    /// A `complete` on a turn of 10 s or less (or whose start was not seen).
    case shortTurn = "short_turn"
    /// The same `(session_id, type)` was pushed less than 5 s ago.
    case duplicate
}
