import Foundation
import HermesApp
import PushTestSupport
import Testing

@Suite struct HermesOnboardingTests {
    private struct Setup {
        let api: FakeAgentAPI
        let permission: FakePermission
        let clock = ManualClock()
        let snooze: HermesSnoozeStore
        let lifecycle: HermesRegistrationLifecycle
        let onboarding: HermesOnboarding

        init(hub: HermesHubAnswer, permission: FakePermission = FakePermission()) {
            api = FakeAgentAPI(hub: hub)
            self.permission = permission
            snooze = HermesSnoozeStore(file: HermesStateFile(url: temporaryFolder().appendingPathComponent("s.json")),
                                       now: clock.closure)
            lifecycle = HermesRegistrationLifecycle(api: api, permission: permission, environment: .sandbox, appVersion: "1.0")
            onboarding = HermesOnboarding(api: api, snooze: snooze, lifecycle: lifecycle)
        }
    }

    @Test func theDecisionTable() {
        #expect(HermesOnboardingDecision.decide(readiness: .ready, isSnoozed: false) == .requestPermissionThenRegister)
        #expect(HermesOnboardingDecision.decide(readiness: .ready, isSnoozed: true) == .requestPermissionThenRegister)
        #expect(HermesOnboardingDecision.decide(readiness: .notReady, isSnoozed: false) == .showInfoSheet(.install))
        #expect(HermesOnboardingDecision.decide(readiness: .notReady, isSnoozed: true) == .stayQuiet(.snoozed))
        #expect(HermesOnboardingDecision.decide(readiness: .unknown, isSnoozed: false) == .stayQuiet(.readinessUnknown))
        #expect(HermesOnboardingDecision.decide(readiness: .unknown, isSnoozed: true) == .stayQuiet(.readinessUnknown))
    }

    @Test func readyAsksPermissionThenAsksTheOSForAToken() async throws {
        let setup = Setup(hub: FakeAgentAPI.ready)
        #expect(await setup.onboarding.evaluate() == .requestPermissionThenRegister)
        #expect(setup.permission.log == ["prompt", "registerForRemoteNotifications"])
        #expect(try await setup.lifecycle.deviceTokenDidChange(hex: "ABCD"))
        #expect(setup.api.registrations == [HermesDeviceRegistration(deviceToken: "abcd", environment: .sandbox, appVersion: "1.0")])
    }

    @Test func notReadyShowsTheSheetAndNeverPrompts() async {
        let setup = Setup(hub: FakeAgentAPI.notReady)
        let decision = await setup.onboarding.evaluate()
        #expect(decision == .showInfoSheet(.install))
        #expect(HermesInfoSheet.install.actions.map(\.title) == ["Ask agent to install", "Later"])
        #expect(setup.permission.promptCount == 0)
    }

    @Test(arguments: [HermesHubAnswer.response(status: 404, body: Data()), .response(status: 401, body: Data()),
                      .response(status: 403, body: Data()), .transportError("refused"),
                      .response(status: 200, body: Data("<html>".utf8))])
    func unknownNeverNags(hub: HermesHubAnswer) async {
        let setup = Setup(hub: hub)
        #expect(await setup.onboarding.evaluate() == .stayQuiet(.readinessUnknown))
        #expect(setup.permission.promptCount == 0)
        #expect(setup.permission.log.isEmpty)
    }

    @Test func askAgentToInstallPrefillsTheInstallPromptWithoutSendingIt() async {
        let setup = Setup(hub: FakeAgentAPI.notReady)
        let draft = await setup.onboarding.perform(.askAgentToInstall)
        #expect(draft == .installPlugin)
        #expect(draft?.sendsAutomatically == false)
        #expect(draft?.text.contains("hermes-push") == true)
        #expect(await setup.snooze.isSnoozed() == false, "asking the agent is not a snooze")
    }

    @Test func laterSnoozesOnTheBackoffAndTheSheetReturnsAfterIt() async {
        let setup = Setup(hub: FakeAgentAPI.notReady)
        #expect(await setup.onboarding.perform(.later) == nil)
        #expect(await setup.onboarding.evaluate() == .stayQuiet(.snoozed))
        setup.clock.advance(86_400)
        #expect(await setup.onboarding.evaluate() == .showInfoSheet(.install))
        _ = await setup.onboarding.perform(.later)
        setup.clock.advance(86_400)
        #expect(await setup.onboarding.evaluate() == .stayQuiet(.snoozed), "the second snooze lasts 2 days")
        setup.clock.advance(86_400)
        #expect(await setup.onboarding.evaluate() == .showInfoSheet(.install))
    }

    @Test func becomingReadyClearsTheSnooze() async {
        let setup = Setup(hub: FakeAgentAPI.notReady)
        _ = await setup.onboarding.perform(.later)
        setup.api.setHub(FakeAgentAPI.ready)
        #expect(await setup.onboarding.evaluate() == .requestPermissionThenRegister)
        #expect(await setup.snooze.current.snoozeCount == 0)
    }
}
