import JWTVerify
import Testing
@testable import MockAPNs

@Suite struct StreamLimitPolicyTests {
    private func tokenState(authenticated: Bool) -> EndpointConnectionState {
        var auth = ConnectionAuthState(environment: .production)
        auth.hasSeenValidToken = authenticated
        return EndpointConnectionState(auth: auth)
    }

    @Test func oneStreamUntilAValidTokenThenTheConfiguredLimit() {
        let policy = StreamLimitPolicy(maxConcurrentStreams: 1000)
        var state = tokenState(authenticated: false)
        #expect(policy.newLimit(after: false, state: &state) == nil, "no valid token yet: stays at 1")
        state.auth.hasSeenValidToken = true
        #expect(policy.newLimit(after: true, state: &state) == 1000)
        #expect(policy.newLimit(after: true, state: &state) == nil, "already granted")
    }

    @Test func aRejectionLowersToOneAndASuccessRestores() {
        let policy = StreamLimitPolicy(maxConcurrentStreams: 500)
        var state = tokenState(authenticated: true)
        #expect(policy.newLimit(after: true, state: &state) == 500)
        #expect(policy.newLimit(after: false, state: &state) == 1)
        #expect(policy.newLimit(after: false, state: &state) == nil, "already lowered")
        #expect(policy.newLimit(after: true, state: &state) == 500)
    }

    @Test func aValidTokenOnARejectedPushGrantsButStaysLowered() {
        let policy = StreamLimitPolicy()
        var state = tokenState(authenticated: true)
        #expect(policy.newLimit(after: false, state: &state) == nil)
        #expect(state.granted && state.lowered)
        #expect(policy.newLimit(after: true, state: &state) == StreamLimitPolicy.defaultMaxConcurrentStreams)
    }

    @Test func loweringCanBeTurnedOff() {
        let policy = StreamLimitPolicy(maxConcurrentStreams: 10, lowersAfterRejection: false)
        var state = tokenState(authenticated: true)
        #expect(policy.newLimit(after: false, state: &state) == 10)
        #expect(policy.newLimit(after: false, state: &state) == nil)
    }
}
