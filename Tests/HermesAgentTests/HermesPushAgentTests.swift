import Foundation
import HTTPTransport
import HermesAgent
import HermesContract
import PushTestSupport
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(1))) struct HermesPushAgentTests {
    @Test func handleNeverWaitsForTheGateway() async throws {
        // The gateway holds every answer until the test releases it.
        let held = Mutex<[HTTPResponder]>([])
        let gateway = try RecordingHTTPServer { _, _, responder in held.withLock { $0.append(responder) } }
        defer { gateway.stop() }
        let store = try HermesDeviceStore(path: temporaryStorePath())
        try store.register(device(tokenA))
        try store.register(device(tokenB))
        let url = try #require(URL(string: gateway.baseURL + "/push"))
        let sender = HermesGatewaySender(configuration: HermesGatewayConfiguration(pushURL: url, authorization: .sharedSecret([1])),
                                         store: store)
        let agent = HermesPushAgent(store: store, sender: sender, policy: HermesSuppressionPolicy())

        let decision = agent.handle(.preApprovalRequest(sessionID: "s1", surface: .gateway))
        #expect(decision == .send(.approval, sessionID: "s1"))
        #expect(agent.results.isEmpty, "handle returned before any answer")
        #expect(await pollUntil { held.withLock { $0.count } == 2 }, "one request per device")
        #expect(agent.results.isEmpty)
        for responder in held.withLock({ $0 }) { responder.respond(HTTPResponse(status: 200)) }
        await agent.waitUntilIdle()
        #expect(agent.results.count == 2)
        #expect(agent.results.allSatisfy { $0.outcome == .delivered })
        #expect(Set(agent.results.map(\.maskedDeviceToken)) == ["abab…abab", "cdcd…cdcd"])
    }

    @Test func droppedEventsSendNothing() async throws {
        let gateway = try RecordingHTTPServer { _, _ in HTTPResponse(status: 200) }
        defer { gateway.stop() }
        let store = try HermesDeviceStore(path: temporaryStorePath())
        let url = try #require(URL(string: gateway.baseURL + "/push"))
        let presence = HermesViewedSessions()
        let agent = HermesPushAgent(
            store: store, sender: HermesGatewaySender(configuration: .init(pushURL: url, authorization: .sharedSecret([1])), store: store),
            policy: HermesSuppressionPolicy(), presence: presence)
        #expect(agent.handle(.preApprovalRequest(sessionID: "s1", surface: .gateway)) == .drop(.approval, sessionID: "s1", reason: .noDevices))
        try store.register(device(tokenA))
        presence.clientOpened(sessionID: "s1")
        #expect(agent.handle(.preApprovalRequest(sessionID: "s1", surface: .gateway)) == .drop(.approval, sessionID: "s1", reason: .liveClientViewing))
        presence.clientClosed(sessionID: "s1")
        #expect(agent.handle(.preApprovalRequest(sessionID: "s1", surface: .gateway)) == .send(.approval, sessionID: "s1"))
        await agent.waitUntilIdle()
        #expect(gateway.requests.count == 1)
    }
}
