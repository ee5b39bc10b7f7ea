import Foundation

/// The app's onboarding on a virtual device: the real ``HermesOnboarding``, snooze store
/// and registration lifecycle over an agent API, run on a virtual clock by a user who taps
/// "Later" whenever the install sheet shows.
///
/// Each launch opens the app anew at a date: it reads the hub, loads the snooze state from
/// `stateFile` and decides, as the app does each time it opens. After each "Later" the
/// clock jumps to one second before the snooze ends (the app must stay quiet) and then to
/// its end (the sheet must return).
///
/// ```swift
/// let onboarding = HermesVirtualOnboarding(api: api, stateFile: folder.appendingPathComponent("snooze.json"))
/// let transcript = await onboarding.run(from: start, laterTaps: 4)
/// transcript.snoozes.map(\.days)       // [1, 2, 3, 5] when the plugin is not ready
/// ```
public struct HermesVirtualOnboarding: Sendable {
    private let api: HubAnswerRecorder
    private let file: HermesStateFile<HermesSnoozeStore.State>
    private let permission: HermesVirtualPermission
    private let lifecycle: HermesRegistrationLifecycle

    /// - Parameters:
    ///   - api: The agent the app talks to.
    ///   - stateFile: Where the snooze state is kept between launches.
    ///   - permission: The OS's permission prompt and token requests.
    public init(api: any HermesAgentAPI, stateFile: URL, permission: HermesVirtualPermission = HermesVirtualPermission()) {
        self.api = HubAnswerRecorder(api)
        self.file = HermesStateFile(url: stateFile)
        self.permission = permission
        // The app's build settings; onboarding registers nothing until a token arrives.
        self.lifecycle = HermesRegistrationLifecycle(api: api, permission: permission, environment: .sandbox, appVersion: "virtual")
    }

    /// Launches the app at `start`, then taps "Later" up to `laterTaps` times, each time
    /// the sheet shows.
    public func run(from start: Date, laterTaps: Int) async -> HermesOnboardingTranscript {
        let first = await launch(at: start)
        var current = first
        var snoozes: [HermesOnboardingTranscript.Snooze] = []
        while snoozes.count < laterTaps, case .showInfoSheet = current.decision {
            let state = await tapLater(at: current.date)
            guard let until = state.snoozedUntil else { break }
            let justBefore = await launch(at: until.addingTimeInterval(-1))
            let atEnd = await launch(at: until)
            snoozes.append(.init(number: state.snoozeCount, tappedAt: current.date,
                                 days: HermesSnoozeSchedule.days(forSnooze: state.snoozeCount), until: until,
                                 launchJustBefore: justBefore, launchAtEnd: atEnd))
            current = atEnd
        }
        return HermesOnboardingTranscript(firstLaunch: first, snoozes: snoozes, osRequests: await permission.requests)
    }

    /// Opens the app at `date` and runs onboarding.
    private func launch(at date: Date) async -> HermesOnboardingTranscript.Launch {
        let decision = await onboarding(at: date).evaluate()
        let answer = await api.lastHubAnswer ?? .transportError("the hub was not read")
        return .init(date: date, hubAnswer: answer, readiness: HermesPluginReadiness(hubAnswer: answer), decision: decision)
    }

    /// Taps "Later" on the sheet at `date`.
    ///
    /// - Returns: The snooze state after the tap.
    private func tapLater(at date: Date) async -> HermesSnoozeStore.State {
        let snooze = HermesSnoozeStore(file: file, now: { date })
        _ = await HermesOnboarding(api: api, snooze: snooze, lifecycle: lifecycle).perform(.later)
        return await snooze.current
    }

    private func onboarding(at date: Date) -> HermesOnboarding {
        HermesOnboarding(api: api, snooze: HermesSnoozeStore(file: file, now: { date }), lifecycle: lifecycle)
    }
}

/// Passes every call to the agent through and keeps the hub's last answer, so a launch can
/// say what the readiness check read.
private actor HubAnswerRecorder: HermesAgentAPI {
    private let api: any HermesAgentAPI
    private(set) var lastHubAnswer: HermesHubAnswer?

    init(_ api: any HermesAgentAPI) {
        self.api = api
    }

    func fetchPluginHub() async -> HermesHubAnswer {
        let answer = await api.fetchPluginHub()
        lastHubAnswer = answer
        return answer
    }

    func registerDevice(_ registration: HermesDeviceRegistration) async throws(HermesAgentAPIError) {
        try await api.registerDevice(registration)
    }

    func unregisterDevice(deviceToken: String) async throws(HermesAgentAPIError) {
        try await api.unregisterDevice(deviceToken: deviceToken)
    }

    func sendTestNotification() async throws(HermesAgentAPIError) {
        try await api.sendTestNotification()
    }
}
