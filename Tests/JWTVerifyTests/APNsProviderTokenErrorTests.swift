import Testing

import JWTVerify

@Suite struct APNsProviderTokenErrorTests {
    @Test(arguments: [
        (APNsProviderTokenError.missingProviderToken, "MissingProviderToken", 403),
        (.invalidProviderToken(detail: "x"), "InvalidProviderToken", 403),
        (.expiredProviderToken, "ExpiredProviderToken", 403),
        (.tooManyProviderTokenUpdates, "TooManyProviderTokenUpdates", 429),
        (.unrelatedKeyIdInToken, "UnrelatedKeyIdInToken", 403),
        (.badEnvironmentKeyIdInToken, "BadEnvironmentKeyIdInToken", 403),
    ])
    func carriesTheExactWireReasonAndStatus(error: APNsProviderTokenError, reason: String, status: Int) {
        #expect(error.reason == reason)
        #expect(error.status == status)
        #expect(error.description.hasPrefix("\(status) \(reason): "))
        #expect(!error.message.isEmpty)
    }

    @Test func allCasesAreListedOnceEach() {
        #expect(Set(APNsProviderTokenError.allCases.map(\.reason)).count == 6)
    }

    @Test func invalidTokenDetailAppearsInTheMessage() {
        #expect(APNsProviderTokenError.invalidProviderToken(detail: "kid unknown").message.contains("kid unknown"))
    }
}
