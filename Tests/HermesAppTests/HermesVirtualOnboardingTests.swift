import Foundation
import HermesApp
import PushTestSupport
import Testing

@Suite struct HermesVirtualOnboardingTests {
    /// 2026-12-05T09:00:00Z.
    private static let start = Date(timeIntervalSince1970: 1_796_461_200)
    private static let day: TimeInterval = 86_400

    @Test func notReadyShowsTheSheetAndEachLaterSnoozesOnTheFibonacciBackoff() async throws {
        let file = temporaryFolder().appendingPathComponent("snooze.json")
        let onboarding = HermesVirtualOnboarding(api: FakeAgentAPI(hub: FakeAgentAPI.notReady), stateFile: file)
        let transcript = await onboarding.run(from: Self.start, laterTaps: 5)

        #expect(transcript.firstLaunch.readiness == .notReady)
        #expect(transcript.firstLaunch.decision == .showInfoSheet(.install))
        #expect(transcript.snoozes.map(\.number) == [1, 2, 3, 4, 5])
        #expect(transcript.snoozes.map(\.days) == [1, 2, 3, 5, 8])
        // Each tap is at the end of the previous snooze: 1, 3, 6, 11 and 19 days after the start.
        #expect(transcript.snoozes.map(\.until) == [1, 3, 6, 11, 19].map { Self.start.addingTimeInterval($0 * Self.day) })
        #expect(transcript.snoozes.map(\.tappedAt) == [0, 1, 3, 6, 11].map { Self.start.addingTimeInterval($0 * Self.day) })
        for snooze in transcript.snoozes {
            #expect(snooze.launchJustBefore.date == snooze.until.addingTimeInterval(-1))
            #expect(snooze.launchJustBefore.decision == .stayQuiet(.snoozed))
            #expect(snooze.launchAtEnd.decision == .showInfoSheet(.install))
        }
        #expect(transcript.osRequests.isEmpty, "a plugin that is not ready never prompts")
        // Every launch loaded the snooze from the file, as a relaunched app does.
        #expect(try HermesStateFile<HermesSnoozeStore.State>(url: file).load()?.snoozeCount == 5)
    }

    @Test func readyAsksPermissionAndNeverShowsTheSheet() async {
        let onboarding = HermesVirtualOnboarding(api: FakeAgentAPI(hub: FakeAgentAPI.ready),
                                                 stateFile: temporaryFolder().appendingPathComponent("snooze.json"))
        let transcript = await onboarding.run(from: Self.start, laterTaps: 3)
        #expect(transcript.firstLaunch.readiness == .ready)
        #expect(transcript.firstLaunch.decision == .requestPermissionThenRegister)
        #expect(transcript.snoozes.isEmpty)
        #expect(transcript.osRequests == [.prompt(allowed: true), .registerForRemoteNotifications])
    }

    @Test func anUnreachableAgentStaysQuiet() async {
        let onboarding = HermesVirtualOnboarding(api: FakeAgentAPI(hub: .transportError("refused")),
                                                 stateFile: temporaryFolder().appendingPathComponent("snooze.json"))
        let transcript = await onboarding.run(from: Self.start, laterTaps: 3)
        #expect(transcript.firstLaunch.hubAnswer == .transportError("refused"))
        #expect(transcript.firstLaunch.readiness == .unknown)
        #expect(transcript.firstLaunch.decision == .stayQuiet(.readinessUnknown))
        #expect(transcript.snoozes.isEmpty && transcript.osRequests.isEmpty)
    }

    @Test func aDeniedPromptIsRecordedAndAsksForNoToken() async {
        let onboarding = HermesVirtualOnboarding(api: FakeAgentAPI(hub: FakeAgentAPI.ready),
                                                 stateFile: temporaryFolder().appendingPathComponent("snooze.json"),
                                                 permission: HermesVirtualPermission(userAllows: false))
        let transcript = await onboarding.run(from: Self.start, laterTaps: 0)
        #expect(transcript.osRequests == [.prompt(allowed: false)])
    }
}
