import APNsCore
import Foundation
import HermesAgent
import HermesApp
import HermesContract
import JWTVerify
import MockAPNs
import Testing

/// The agent, the real gateway, the mock and the app logic, end to end.
@Suite(.timeLimit(.minutes(2))) struct HermesChainTests {
    @Test func allFourTriggersReachTheAppWhichRoutesBadgesAndSuppresses() async throws {
        let chain = try await HermesChain.start()
        try chain.register(HermesChain.tokenA)
        let agent = try chain.agent()
        let device = try await chain.device()
        await device.handler.setViewing(sessionID: "sess-error")

        #expect(agent.handle(.preApprovalRequest(sessionID: "sess-approval", surface: .gateway)) == .send(.approval, sessionID: "sess-approval"))
        #expect(agent.handle(.preToolCall(sessionID: "sess-clarify", toolName: "clarify")) == .send(.clarify, sessionID: "sess-clarify"))
        agent.handle(.preLLMCall(sessionID: "sess-complete"))
        chain.clock.advance(12)
        #expect(agent.handle(.postLLMCall(sessionID: "sess-complete")) == .send(.complete, sessionID: "sess-complete"))
        #expect(agent.handle(.onSessionEnd(sessionID: "sess-error", completed: false, interrupted: false)) == .send(.error, sessionID: "sess-error"))
        await agent.waitUntilIdle()
        #expect(agent.results.map(\.outcome) == Array(repeating: .delivered, count: 4))

        let delivered = try await device.waitForDeliveries(count: 4, timeout: 30)
        let byType = Dictionary(uniqueKeysWithValues: delivered.compactMap { $0.outcome }.map { ($0.notification.type, $0) })
        #expect(Set(byType.keys) == Set(HermesPushType.allCases))
        for (type, outcome) in byType {
            #expect(outcome.tapRoute == .session("sess-\(type.rawValue)"), "a tap opens the push's session")
        }
        #expect(byType[.error]?.presentation == .suppressedViewingSession, "the viewed session shows no banner")
        #expect(byType[.approval]?.presentation == .banner && byType[.complete]?.presentation == .banner)
        #expect(await device.handler.badge == 1)
        #expect(await device.handler.approvalAnswered(sessionID: "sess-approval") == 0)
        #expect(delivered.allSatisfy { $0.pushType == "alert" && $0.priority == 10 && $0.topic == "com.example.app" })
        await chain.stop()
    }

    @Test func capabilityModeRegistersWithTheRealGateway() async throws {
        let chain = try await HermesChain.start()
        try chain.register(HermesChain.tokenA)
        let agent = try chain.agent(.capability)
        let device = try await chain.device()
        agent.handle(.preApprovalRequest(sessionID: "sess-1", surface: .gateway))
        await agent.waitUntilIdle()
        let result = try #require(agent.results.first)
        #expect(result.outcome == .delivered && result.registerAttempts == 1 && !result.refreshedCapability)
        #expect(try await device.waitForDeliveries(count: 1, timeout: 30).first?.outcome?.tapRoute == .session("sess-1"))
        await chain.stop()
    }

    @Test func aDeviceUnregisteredAtTheMockIsPrunedAtTheAgent() async throws {
        let chain = try await HermesChain.start()
        try chain.register(HermesChain.tokenA)
        try chain.register(HermesChain.tokenB)
        var registry = chain.mock.registry
        for (token, state) in [(HermesChain.tokenA, DeviceState.active), (HermesChain.tokenB, .unregistered(since: Date()))] {
            let parsed = try #require(DeviceToken(token))
            registry.devices[parsed] = RegisteredDevice(token: parsed, bundleID: "com.example.app", environment: .sandbox, state: state)
        }
        chain.mock.replaceRegistry(registry)
        let agent = try chain.agent()

        agent.handle(.preApprovalRequest(sessionID: "sess-1", surface: .gateway))
        await agent.waitUntilIdle()
        let outcomes = Dictionary(uniqueKeysWithValues: agent.results.map { ($0.maskedDeviceToken, $0.outcome) })
        #expect(outcomes == ["abab…abab": .delivered, "cdcd…cdcd": .pruned])
        #expect(chain.store.all.map(\.deviceToken) == [HermesChain.tokenA])
        #expect(try HermesDeviceStore(path: chain.store.path).all.map(\.deviceToken) == [HermesChain.tokenA], "pruned on disk")
        let rejected = await chain.mock.capture.wait(for: CaptureFilter(outcome: .rejected), count: 1, timeout: .seconds(10))
        #expect(rejected.records.first?.outcome.reason == .unregistered)

        // The next trigger goes to the remaining device only.
        agent.handle(.preToolCall(sessionID: "sess-1", toolName: "clarify"))
        await agent.waitUntilIdle()
        #expect(agent.results.count == 3)
        await chain.stop()
    }

    @Test func withTheGatewayDownRetriesStayBoundedAndNothingCrashes() async throws {
        let chain = try await HermesChain.start()
        try chain.register(HermesChain.tokenA)
        await chain.gateway.shutdown(gracePeriod: .milliseconds(100))
        // Not the stopped gateway's own port: once freed, a listener of a test running
        // alongside may take it and answer. Nothing listens on port 1.
        let pushURL = "http://127.0.0.1:1/push"
        let agent = try chain.agent(pushURL: pushURL) { configuration in
            configuration.backoff = [.milliseconds(20), .milliseconds(40)]
        }
        #expect(agent.handle(.preApprovalRequest(sessionID: "sess-1", surface: .gateway)) == .send(.approval, sessionID: "sess-1"))
        await agent.waitUntilIdle()
        let result = try #require(agent.results.first)
        guard case .failed(let detail) = result.outcome else {
            Issue.record("expected a failure, got \(result.outcome)")
            chain.mock.stop()
            return
        }
        #expect(detail.contains("unreachable"))
        #expect(result.pushAttempts == HermesGatewayConfiguration.defaultMaximumAttempts)
        #expect(chain.store.count == 1, "an unreachable gateway prunes nothing")
        #expect(chain.mock.capture.records(matching: .all, limit: nil).isEmpty)
        chain.mock.stop()
    }

    @Test func aLiveClientOnTheSessionDropsAtTheAgentAndTheAppSuppressesWhatGetsThrough() async throws {
        let chain = try await HermesChain.start()
        try chain.register(HermesChain.tokenA)
        let agent = try chain.agent()
        chain.presence.clientOpened(sessionID: "sess-1")
        #expect(agent.handle(.preApprovalRequest(sessionID: "sess-1", surface: .gateway)) == .drop(.approval, sessionID: "sess-1", reason: .liveClientViewing))
        chain.presence.clientClosed(sessionID: "sess-1")
        // The agent no longer sees a client, but the phone is open on the session.
        let device = try await chain.device()
        await device.handler.setViewing(sessionID: "sess-1")
        agent.handle(.preApprovalRequest(sessionID: "sess-1", surface: .gateway))
        await agent.waitUntilIdle()
        let delivered = try await device.waitForDeliveries(count: 1, timeout: 30)
        #expect(delivered.count == 1)
        #expect(delivered.first?.outcome?.presentation == .suppressedViewingSession)
        #expect(delivered.first?.outcome?.presentation.isShown == false)
        await chain.stop()
    }
}
