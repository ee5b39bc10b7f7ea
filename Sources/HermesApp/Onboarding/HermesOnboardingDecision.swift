import Foundation

/// What the app does about push when it opens (contract §4).
public enum HermesOnboardingDecision: Sendable, Hashable {
    /// The plugin is ready: ask for permission (if never asked), then register.
    case requestPermissionThenRegister
    /// The plugin is not ready and the sheet is not snoozed: explain, and offer to ask
    /// the agent to install it.
    case showInfoSheet(HermesInfoSheet)
    /// Say nothing, for the reason given.
    case stayQuiet(HermesQuietReason)

    /// The decision for a readiness answer and the snooze state; pure, so every row of the
    /// table is testable.
    public static func decide(readiness: HermesPluginReadiness, isSnoozed: Bool) -> HermesOnboardingDecision {
        switch readiness {
        case .ready: .requestPermissionThenRegister
        case .unknown: .stayQuiet(.readinessUnknown)
        case .notReady: isSnoozed ? .stayQuiet(.snoozed) : .showInfoSheet(.install)
        }
    }
}

/// Why the app stays quiet.
public enum HermesQuietReason: Sendable, Hashable {
    /// The hub could not be read: never nag on an unknown answer.
    case readinessUnknown
    /// The user chose "Later" and the snooze has not run out.
    case snoozed
}

/// The info sheet shown when the plugin is missing.
public struct HermesInfoSheet: Sendable, Hashable {
    /// The sheet's title.
    public var title: String
    /// What it explains.
    public var message: String
    /// In display order: "Ask agent to install", then "Later".
    public var actions: [HermesInfoSheetAction]

    /// The sheet for a missing or disabled `hermes-push` plugin.
    public static let install = HermesInfoSheet(
        title: "Get notified when Hermes needs you",
        message: "Push notifications need the hermes-push plugin on your agent. Hermes can install it for you.",
        actions: [.askAgentToInstall, .later])
}

/// The two buttons of the info sheet.
public enum HermesInfoSheetAction: String, Sendable, Hashable, CaseIterable {
    /// Opens a new chat with ``HermesChatDraft/installPlugin`` in the composer, unsent.
    case askAgentToInstall = "Ask agent to install"
    /// Snoozes the sheet on the Fibonacci backoff.
    case later = "Later"

    /// The button's title.
    public var title: String { rawValue }
}

/// A message placed in a new chat's composer.
public struct HermesChatDraft: Sendable, Hashable {
    /// The text in the composer.
    public var text: String
    /// Whether it is sent without the user pressing send: never for the install prompt,
    /// because installing a plugin is the user's decision.
    public var sendsAutomatically: Bool

    /// The install prompt, pre-filled and not sent.
    public static let installPlugin = HermesChatDraft(
        text: "Please install and enable the hermes-push plugin so this app can send me push notifications.",
        sendsAutomatically: false)
}
