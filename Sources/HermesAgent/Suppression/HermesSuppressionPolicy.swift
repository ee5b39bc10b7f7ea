import Foundation
import HermesContract
import Synchronization

/// The plugin's suppression gates (contract §1), with an injected clock.
///
/// Gates run cheapest first: no registered devices, a live client viewing the session,
/// then for `complete` a `clarify` earlier in the turn and a turn of 10 s or less
/// (measured from the turn's `pre_llm_call`), and finally the 5 s `(session_id, type)`
/// dedup. Only pushes that pass every gate count for dedup.
///
/// ```swift
/// let policy = HermesSuppressionPolicy(now: clock)
/// _ = policy.evaluate(.preLLMCall(sessionID: "s"), deviceCount: 1)
/// // ... 12 s later
/// policy.evaluate(.postLLMCall(sessionID: "s"), deviceCount: 1)    // .send(.complete, "s")
/// ```
public final class HermesSuppressionPolicy: Sendable {
    /// A `complete` on a turn this long or shorter is dropped, in seconds.
    public static let minimumTurnDuration: TimeInterval = 10
    /// A push of the same type for the same session within this many seconds is dropped.
    public static let dedupWindow: TimeInterval = 5

    private struct DedupKey: Hashable {
        var sessionID: String
        var type: HermesPushType
    }

    private struct Turn {
        var startedAt: Date
        var clarified = false
    }

    private struct State {
        var turns: [String: Turn] = [:]
        var lastSent: [DedupKey: Date] = [:]
        var lastSweep = Date.distantPast
    }

    private let now: @Sendable () -> Date
    private let state = Mutex(State())

    /// - Parameter now: The clock; tests pass a settable one.
    public init(now: @escaping @Sendable () -> Date = Date.init) {
        self.now = now
    }

    /// Updates the turn state with `event` and decides whether it pushes.
    ///
    /// - Parameters:
    ///   - deviceCount: How many devices are registered now.
    ///   - isLiveClientViewing: Whether a live client shows the session; asked only when
    ///     the cheaper gate passed.
    public func evaluate(_ event: HermesHookEvent, deviceCount: Int,
                         isLiveClientViewing: (String) -> Bool = { _ in false }) -> HermesPushDecision {
        let time = now()
        let sessionID = event.sessionID
        let type = HermesTriggerMapping.pushType(for: event)
        // The presence check may call out to the agent; it runs outside the lock.
        let early: HermesDropReason? = switch type {
        case nil: nil
        case _ where deviceCount <= 0: .noDevices
        case _ where isLiveClientViewing(sessionID): .liveClientViewing
        default: nil
        }
        return state.withLock { state -> HermesPushDecision in
            switch event {
            case .preLLMCall:
                state.turns[sessionID] = Turn(startedAt: time)
            case .onSessionEnd:
                // Nothing after the session's end needs its turn (error is never duration-gated).
                state.turns[sessionID] = nil
            default:
                break
            }
            guard let type else { return .notATrigger }
            // The user is prompted in the session either way, so the turn's complete is
            // noise even when this clarify itself is dropped.
            if type == .clarify { state.turns[sessionID]?.clarified = true }
            func drop(_ reason: HermesDropReason) -> HermesPushDecision { .drop(type, sessionID: sessionID, reason: reason) }

            if let early { return drop(early) }
            if type == .complete {
                let turn = state.turns[sessionID]
                if turn?.clarified == true { return drop(.clarifiedThisTurn) }
                guard let start = turn?.startedAt, time.timeIntervalSince(start) > Self.minimumTurnDuration else {
                    return drop(.shortTurn)
                }
            }
            let key = DedupKey(sessionID: sessionID, type: type)
            if let last = state.lastSent[key], time.timeIntervalSince(last) < Self.dedupWindow { return drop(.duplicate) }
            // Expired entries are swept at most once per window: each is removed once, so a
            // push costs O(1) amortized however many sessions push.
            if time.timeIntervalSince(state.lastSweep) >= Self.dedupWindow {
                state.lastSent = state.lastSent.filter { time.timeIntervalSince($0.value) < Self.dedupWindow }
                state.lastSweep = time
            }
            state.lastSent[key] = time
            return .send(type, sessionID: sessionID)
        }
    }
}
