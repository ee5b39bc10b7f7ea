import Foundation

/// Runs the onboarding decision against the agent, the snooze store and the registration
/// lifecycle.
///
/// ```swift
/// let onboarding = HermesOnboarding(api: api, snooze: snooze, lifecycle: lifecycle)
/// switch await onboarding.evaluate() {
/// case .showInfoSheet(let sheet): present(sheet)          // then onboarding.perform(action)
/// default: break                                          // permission was asked if ready
/// }
/// ```
public struct HermesOnboarding: Sendable {
    private let api: any HermesAgentAPI
    private let snooze: HermesSnoozeStore
    private let lifecycle: HermesRegistrationLifecycle

    /// Onboarding over the agent API, the snooze store and the registration lifecycle.
    public init(api: any HermesAgentAPI, snooze: HermesSnoozeStore, lifecycle: HermesRegistrationLifecycle) {
        self.api = api
        self.snooze = snooze
        self.lifecycle = lifecycle
    }

    /// Checks readiness and acts on the decision: when ready it clears any snooze and
    /// enables notifications (the permission prompt, then the device token).
    public func evaluate() async -> HermesOnboardingDecision {
        let readiness = HermesPluginReadiness(hubAnswer: await api.fetchPluginHub())
        let decision = HermesOnboardingDecision.decide(readiness: readiness, isSnoozed: await snooze.isSnoozed())
        if decision == .requestPermissionThenRegister {
            try? await snooze.reset()
            await lifecycle.enable(readiness: readiness)
        }
        return decision
    }

    /// Handles a tap on one of the sheet's buttons.
    ///
    /// - Returns: The chat draft to open for "Ask agent to install"; nil for "Later",
    ///   which snoozes (and saves the snooze).
    public func perform(_ action: HermesInfoSheetAction) async -> HermesChatDraft? {
        switch action {
        case .askAgentToInstall:
            return .installPlugin
        case .later:
            // A snooze that cannot be saved still holds in memory for this run.
            _ = try? await snooze.snooze()
            return nil
        }
    }
}
