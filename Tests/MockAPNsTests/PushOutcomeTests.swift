import APNsCore
import JWTVerify
import MockAPNs
import Testing

@Suite struct PushOutcomeTests {
    @Test func rejectionsCarryAPNsStatusForTheReason() {
        let outcome = PushOutcome.rejected(.unregistered, apnsID: "id", uniqueID: nil, timestamp: 5)
        #expect(outcome.status == 410 && outcome.reason == .unregistered && outcome.timestamp == 5)
        #expect(!outcome.isAccepted)
        #expect(PushOutcome.accepted(apnsID: "id", uniqueID: "u").isAccepted)
    }

    @Test func everyProviderTokenErrorMapsToAKnownReasonWithTheSameStatus() {
        for error in APNsProviderTokenError.allCases {
            let reason = APNsReason(error)
            #expect(reason.wireValue == error.reason)
            #expect(reason.status == error.status)
        }
    }
}
