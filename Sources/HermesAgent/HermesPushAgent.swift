import Foundation
import Synchronization

/// The plugin's logic in one place: hook events in, pushes out.
///
/// ``handle(_:)`` maps the event, runs the suppression gates and returns the decision at
/// once; sends to every registered device run in a background task, so a hook never waits
/// for the network. Results (token masked) go to `onResult` and ``results``.
///
/// ```swift
/// let agent = HermesPushAgent(store: store, sender: sender, policy: HermesSuppressionPolicy())
/// agent.handle(.preApprovalRequest(sessionID: "sess-1", surface: .gateway))   // returns at once
/// await agent.waitUntilIdle()
/// ```
public final class HermesPushAgent: Sendable {
    /// The registered devices; each trigger goes to all of them.
    public let store: HermesDeviceStore
    /// Sends one push to one device.
    public let sender: HermesGatewaySender
    /// The suppression gates.
    public let policy: HermesSuppressionPolicy
    private let presence: (any HermesLiveClientPresence)?
    private let onResult: @Sendable (HermesSendResult) -> Void
    /// Sends running, and who waits for them to finish.
    private let inFlight = Mutex<(count: Int, waiters: [CheckedContinuation<Void, Never>])>((0, []))
    private let recorded = Mutex<[HermesSendResult]>([])

    /// - Parameters:
    ///   - presence: Which sessions a live client shows; nil when the agent cannot tell.
    ///   - onResult: Called once per device and push, from a background task.
    public init(store: HermesDeviceStore, sender: HermesGatewaySender, policy: HermesSuppressionPolicy,
                presence: (any HermesLiveClientPresence)? = nil,
                onResult: @escaping @Sendable (HermesSendResult) -> Void = { _ in }) {
        self.store = store
        self.sender = sender
        self.policy = policy
        self.presence = presence
        self.onResult = onResult
    }

    /// Handles one hook event without blocking: decides now, sends in the background.
    @discardableResult
    public func handle(_ event: HermesHookEvent) -> HermesPushDecision {
        let devices = store.all
        let decision = policy.evaluate(event, deviceCount: devices.count) { [presence] sessionID in
            presence?.isViewing(sessionID: sessionID) ?? false
        }
        guard case .send(let type, let sessionID) = decision else { return decision }
        inFlight.withLock { $0.count += 1 }
        Task {
            await withTaskGroup(of: HermesSendResult.self) { group in
                for device in devices {
                    group.addTask { await self.sender.send(type, sessionID: sessionID, to: device) }
                }
                for await result in group {
                    self.recorded.withLock { $0.append(result) }
                    self.onResult(result)
                }
            }
            self.finishedOne()
        }
        return decision
    }

    /// Every send result so far, in completion order.
    public var results: [HermesSendResult] { recorded.withLock { $0 } }

    /// Waits until every send started so far has finished.
    public func waitUntilIdle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = inFlight.withLock { state -> Bool in
                if state.count == 0 { return true }
                state.waiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    private func finishedOne() {
        let waiters = inFlight.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.count -= 1
            guard state.count == 0 else { return [] }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
