import Foundation
import HermesAgent
import HermesContract
import PushTestSupport
import Testing

@Suite struct HermesSuppressionPolicyTests {
    let clock = ManualClock()
    var policy: HermesSuppressionPolicy { HermesSuppressionPolicy(now: clock.closure) }

    private let approval = HermesHookEvent.preApprovalRequest(sessionID: "s1", surface: .gateway)

    @Test func noRegisteredDevicesDrops() {
        #expect(policy.evaluate(approval, deviceCount: 0) == .drop(.approval, sessionID: "s1", reason: .noDevices))
        #expect(policy.evaluate(approval, deviceCount: 1) == .send(.approval, sessionID: "s1"))
    }

    @Test func aLiveClientViewingTheSessionDrops() {
        let policy = policy
        #expect(policy.evaluate(approval, deviceCount: 1, isLiveClientViewing: { $0 == "s1" })
                == .drop(.approval, sessionID: "s1", reason: .liveClientViewing))
        #expect(policy.evaluate(.preApprovalRequest(sessionID: "s2", surface: .gateway), deviceCount: 1,
                                isLiveClientViewing: { $0 == "s1" }) == .send(.approval, sessionID: "s2"))
    }

    @Test func gatesRunCheapestFirst() {
        var asked = false
        let decision = policy.evaluate(approval, deviceCount: 0, isLiveClientViewing: { _ in asked = true; return true })
        #expect(decision == .drop(.approval, sessionID: "s1", reason: .noDevices))
        #expect(!asked, "the presence check is not made when there are no devices")
    }

    @Test func completeOnATurnOfTenSecondsOrLessDrops() {
        let policy = policy
        _ = policy.evaluate(.preLLMCall(sessionID: "s1"), deviceCount: 1)
        clock.advance(10)
        #expect(policy.evaluate(.postLLMCall(sessionID: "s1"), deviceCount: 1) == .drop(.complete, sessionID: "s1", reason: .shortTurn))
        _ = policy.evaluate(.preLLMCall(sessionID: "s1"), deviceCount: 1)
        clock.advance(10.5)
        #expect(policy.evaluate(.postLLMCall(sessionID: "s1"), deviceCount: 1) == .send(.complete, sessionID: "s1"))
    }

    @Test func theTurnIsMeasuredFromItsOwnStart() {
        let policy = policy
        _ = policy.evaluate(.preLLMCall(sessionID: "s1"), deviceCount: 1)
        clock.advance(30)
        // A new turn starts: the 30 s before it do not count.
        _ = policy.evaluate(.preLLMCall(sessionID: "s1"), deviceCount: 1)
        clock.advance(3)
        #expect(policy.evaluate(.postLLMCall(sessionID: "s1"), deviceCount: 1) == .drop(.complete, sessionID: "s1", reason: .shortTurn))
    }

    @Test func completeWithoutASeenTurnStartDrops() {
        #expect(policy.evaluate(.postLLMCall(sessionID: "s1"), deviceCount: 1) == .drop(.complete, sessionID: "s1", reason: .shortTurn))
    }

    @Test func approvalClarifyAndErrorAreNeverDurationGated() {
        let policy = policy
        #expect(policy.evaluate(approval, deviceCount: 1) == .send(.approval, sessionID: "s1"))
        #expect(policy.evaluate(.preToolCall(sessionID: "s2", toolName: "clarify"), deviceCount: 1) == .send(.clarify, sessionID: "s2"))
        #expect(policy.evaluate(.onSessionEnd(sessionID: "s3", completed: false, interrupted: false), deviceCount: 1)
                == .send(.error, sessionID: "s3"))
    }

    @Test func theSamePushWithinFiveSecondsDrops() {
        let policy = policy
        #expect(policy.evaluate(approval, deviceCount: 1) == .send(.approval, sessionID: "s1"))
        clock.advance(4.9)
        #expect(policy.evaluate(approval, deviceCount: 1) == .drop(.approval, sessionID: "s1", reason: .duplicate))
        // Another type, or another session, is not a duplicate.
        #expect(policy.evaluate(.preToolCall(sessionID: "s1", toolName: "clarify"), deviceCount: 1) == .send(.clarify, sessionID: "s1"))
        #expect(policy.evaluate(.preApprovalRequest(sessionID: "s2", surface: .gateway), deviceCount: 1) == .send(.approval, sessionID: "s2"))
        clock.advance(0.1)
        #expect(policy.evaluate(approval, deviceCount: 1) == .send(.approval, sessionID: "s1"), "5 s after the first, it sends again")
    }

    @Test func aDroppedPushDoesNotCountForDedup() {
        let policy = policy
        #expect(policy.evaluate(approval, deviceCount: 0) == .drop(.approval, sessionID: "s1", reason: .noDevices))
        #expect(policy.evaluate(approval, deviceCount: 1) == .send(.approval, sessionID: "s1"))
    }

    @Test func aClarifySuppressesThatTurnsTrailingCompleteOnly() {
        let policy = policy
        _ = policy.evaluate(.preLLMCall(sessionID: "s1"), deviceCount: 1)
        #expect(policy.evaluate(.preToolCall(sessionID: "s1", toolName: "clarify"), deviceCount: 1) == .send(.clarify, sessionID: "s1"))
        clock.advance(60)
        #expect(policy.evaluate(.postLLMCall(sessionID: "s1"), deviceCount: 1)
                == .drop(.complete, sessionID: "s1", reason: .clarifiedThisTurn))
        // Another session's turn is unaffected.
        _ = policy.evaluate(.preLLMCall(sessionID: "s2"), deviceCount: 1)
        clock.advance(11)
        #expect(policy.evaluate(.postLLMCall(sessionID: "s2"), deviceCount: 1) == .send(.complete, sessionID: "s2"))
        // The next turn of s1 completes normally.
        _ = policy.evaluate(.preLLMCall(sessionID: "s1"), deviceCount: 1)
        clock.advance(11)
        #expect(policy.evaluate(.postLLMCall(sessionID: "s1"), deviceCount: 1) == .send(.complete, sessionID: "s1"))
    }

    @Test func nonTriggersAreReportedAsSuch() {
        let policy = policy
        #expect(policy.evaluate(.preLLMCall(sessionID: "s1"), deviceCount: 1) == .notATrigger)
        #expect(policy.evaluate(.preToolCall(sessionID: "s1", toolName: "terminal"), deviceCount: 1) == .notATrigger)
        #expect(policy.evaluate(.onSessionEnd(sessionID: "s1", completed: true, interrupted: false), deviceCount: 1) == .notATrigger)
    }
}
