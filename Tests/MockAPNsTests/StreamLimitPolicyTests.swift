import Testing
@testable import MockAPNs

@Suite struct StreamLimitPolicyTests {
    @Test func oneStreamUntilAValidTokenThenTheConfiguredLimit() {
        let policy = StreamLimitPolicy(maxConcurrentStreams: 1000)
        var state = StreamLimitPolicy.State()
        #expect(policy.newLimit(after: false, authenticated: false, state: &state) == nil, "no valid token yet: stays at 1")
        #expect(policy.newLimit(after: true, authenticated: true, state: &state) == 1000)
        #expect(policy.newLimit(after: true, authenticated: true, state: &state) == nil, "already granted")
    }

    @Test func aRejectionLowersToOneAndASuccessRestores() {
        let policy = StreamLimitPolicy(maxConcurrentStreams: 500)
        var state = StreamLimitPolicy.State()
        #expect(policy.newLimit(after: true, authenticated: true, state: &state) == 500)
        #expect(policy.newLimit(after: false, authenticated: true, state: &state) == 1)
        #expect(policy.newLimit(after: false, authenticated: true, state: &state) == nil, "already lowered")
        #expect(policy.newLimit(after: true, authenticated: true, state: &state) == 500)
    }

    @Test func aValidTokenOnARejectedPushGrantsButStaysLowered() {
        let policy = StreamLimitPolicy()
        var state = StreamLimitPolicy.State()
        #expect(policy.newLimit(after: false, authenticated: true, state: &state) == nil)
        #expect(state.granted && state.lowered)
        #expect(policy.newLimit(after: true, authenticated: true, state: &state) == StreamLimitPolicy.defaultMaxConcurrentStreams)
    }

    @Test func loweringCanBeTurnedOff() {
        let policy = StreamLimitPolicy(maxConcurrentStreams: 10, lowersAfterRejection: false)
        var state = StreamLimitPolicy.State()
        #expect(policy.newLimit(after: false, authenticated: true, state: &state) == 10)
        #expect(policy.newLimit(after: false, authenticated: true, state: &state) == nil)
    }
}
