import Foundation
import HermesApp
import Testing

@Suite struct HermesRegistrationLifecycleTests {
    private func make(_ permission: FakePermission = FakePermission()) -> (FakeAgentAPI, FakePermission, HermesRegistrationLifecycle) {
        let api = FakeAgentAPI(hub: FakeAgentAPI.ready)
        return (api, permission, HermesRegistrationLifecycle(api: api, permission: permission, environment: .production,
                                                              appVersion: "2.1.0"))
    }

    @Test(arguments: [HermesPluginReadiness.notReady, .unknown])
    func permissionIsNeverAskedUnlessThePluginIsReady(readiness: HermesPluginReadiness) async {
        let (_, permission, lifecycle) = make()
        #expect(await lifecycle.enable(readiness: readiness) == .pluginNotReady(readiness))
        #expect(permission.log.isEmpty)
    }

    @Test func aDeniedPromptRegistersNothing() async throws {
        let (api, permission, lifecycle) = make(FakePermission(userAllows: false))
        #expect(await lifecycle.enable(readiness: .ready) == .permissionDenied)
        #expect(permission.log == ["prompt"])
        #expect(try await lifecycle.deviceTokenDidChange(hex: "abcd") == false)
        #expect(api.registrations.isEmpty)
    }

    @Test func anEarlierDenialIsNotPromptedAgain() async {
        let (_, permission, lifecycle) = make(FakePermission(status: .denied))
        #expect(await lifecycle.enable(readiness: .ready) == .permissionDenied)
        #expect(permission.promptCount == 0)
    }

    @Test func alreadyAuthorizedSkipsThePrompt() async {
        let (_, permission, lifecycle) = make(FakePermission(status: .authorized))
        #expect(await lifecycle.enable(readiness: .ready) == .awaitingDeviceToken)
        #expect(permission.log == ["registerForRemoteNotifications"])
    }

    @Test func theTokenIsRegisteredOnceAndAgainWhenItChanges() async throws {
        let (api, _, lifecycle) = make()
        await lifecycle.enable(readiness: .ready)
        #expect(try await lifecycle.deviceTokenDidChange(Data([0xAB, 0x01, 0xFF])))
        #expect(try await lifecycle.deviceTokenDidChange(hex: "AB01FF") == false, "the same token is not registered again")
        #expect(try await lifecycle.deviceTokenDidChange(hex: "cd02") == true)
        #expect(api.registrations == [
            HermesDeviceRegistration(deviceToken: "ab01ff", environment: .production, appVersion: "2.1.0"),
            HermesDeviceRegistration(deviceToken: "cd02", environment: .production, appVersion: "2.1.0"),
        ])
    }

    @Test func aFailedRegistrationIsRetriedWithTheNextToken() async throws {
        let (api, _, lifecycle) = make()
        await lifecycle.enable(readiness: .ready)
        api.setFailure(.status(500, path: HermesAgentEndpoint.register))
        await #expect(throws: HermesAgentAPIError.status(500, path: HermesAgentEndpoint.register)) {
            try await lifecycle.deviceTokenDidChange(hex: "abcd")
        }
        api.setFailure(nil)
        #expect(try await lifecycle.deviceTokenDidChange(hex: "abcd"))
        #expect(await lifecycle.registeredToken == "abcd")
    }

    @Test func optOutUnregistersTheToken() async throws {
        let (api, _, lifecycle) = make()
        await lifecycle.enable(readiness: .ready)
        try await lifecycle.deviceTokenDidChange(hex: "abcd")
        try await lifecycle.disable()
        #expect(api.log.last == "unregister abcd")
        #expect(await lifecycle.registeredToken == nil)
        #expect(try await lifecycle.deviceTokenDidChange(hex: "ef01") == false, "off means no registration")
    }

    @Test func theRegistrationBodyUsesTheContractsKeys() throws {
        let body = try JSONEncoder().encode(HermesDeviceRegistration(deviceToken: "abcd", environment: .sandbox, appVersion: "1.0"))
        let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: String])
        #expect(object == ["device_token": "abcd", "apns_env": "sandbox", "app_version": "1.0"])
    }
}
