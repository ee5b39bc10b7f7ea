import APNsCore
import Foundation
import HermesAgent
import HermesApp
import HermesContract
import MockAPNs
import Testing

/// The phone is offline while the agent asks for approval and then finishes the turn: APNs
/// stores one notification per app, so only the later push reaches the phone
/// (docs/hermes.md, "An offline phone").
@Suite(.timeLimit(.minutes(2))) struct HermesOfflinePhoneTests {
    @Test func anApprovalSentWhileThePhoneIsOfflineNeverReachesItOnlyTheLaterComplete() async throws {
        let chain = try await HermesChain.start(delivery: true)
        try chain.register(HermesChain.tokenA)
        let agent = try chain.agent()
        let device = try await chain.device()
        let token = try #require(DeviceToken(HermesChain.tokenA))

        // 1. The phone goes offline.
        chain.mock.delivery.setConnectivity(.offline, for: token)
        // 2. Approval, then complete, arrive: the gateway gets 200 for both.
        #expect(agent.handle(.preApprovalRequest(sessionID: "sess-1", surface: .gateway)) == .send(.approval, sessionID: "sess-1"))
        await agent.waitUntilIdle()
        agent.handle(.preLLMCall(sessionID: "sess-1"))
        chain.clock.advance(12)
        #expect(agent.handle(.postLLMCall(sessionID: "sess-1")) == .send(.complete, sessionID: "sess-1"))
        await agent.waitUntilIdle()
        #expect(agent.results.map(\.outcome) == [.delivered, .delivered], "APNs accepted both")
        let accepted = await chain.mock.capture.wait(for: CaptureFilter(outcome: .accepted), count: 2, timeout: .seconds(10))
        let ids = accepted.records.map(\.outcome.apnsID)
        #expect(ids.count == 2)
        #expect(try await device.handleShownNotifications().isEmpty, "nothing reaches an offline phone")

        // 3. The phone comes online.
        chain.mock.delivery.setConnectivity(.online, for: token)
        let shown = try await device.handleShownNotifications()
        #expect(shown.compactMap { $0.outcome?.notification.type } == [.complete], "only the later push arrives")
        let approval = try #require(chain.mock.delivery.record(apnsID: ids[0]))
        #expect(approval.state == .discarded && approval.events.last?.why == .coalesced, "the approval was coalesced away")
        #expect(approval.events.last?.by == ids[1])
        #expect(!approval.events.contains { $0.state == .delivered }, "the approval never reached the phone")
        #expect(await device.handler.badge == 0, "no approval badge: the app must fetch pending approvals itself")
        await chain.stop()
    }
}
