import Foundation

/// What ``HermesVirtualOnboarding`` saw: each launch of the app, each "Later" and each
/// request to the OS, with their dates on the virtual clock.
public struct HermesOnboardingTranscript: Sendable, Hashable {
    /// The first launch.
    public var firstLaunch: Launch
    /// Each "Later" tap, in order, with the launches that check its snooze.
    public var snoozes: [Snooze]
    /// What the app asked the OS (the permission prompt, a device token), in order.
    public var osRequests: [HermesVirtualPermission.Request]

    /// One launch of the app: onboarding ran at `date`.
    public struct Launch: Sendable, Hashable {
        /// When the app was opened.
        public var date: Date
        /// What the agent's plugin hub answered.
        public var hubAnswer: HermesHubAnswer
        /// The readiness the app read from that answer.
        public var readiness: HermesPluginReadiness
        /// What onboarding decided.
        public var decision: HermesOnboardingDecision
    }

    /// One tap on "Later".
    public struct Snooze: Sendable, Hashable {
        /// 1 for the first "Later", 2 for the second…
        public var number: Int
        /// When the user tapped it.
        public var tappedAt: Date
        /// The snooze's length in days, from ``HermesSnoozeSchedule``.
        public var days: Int
        /// When the sheet may show again, as the snooze store saved it.
        public var until: Date
        /// A launch one second before `until`.
        public var launchJustBefore: Launch
        /// A launch at `until`.
        public var launchAtEnd: Launch
    }
}
