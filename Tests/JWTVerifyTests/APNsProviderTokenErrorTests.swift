import Testing

import JWTVerify

@Suite struct APNsProviderTokenErrorTests {
    @Test(arguments: [
        (APNsProviderTokenError.missingProviderToken, "MissingProviderToken", 403),
        (.invalidProviderToken(detail: "x"), "InvalidProviderToken", 403),
        (.expiredProviderToken(ageSeconds: 3_724, lifetimeSeconds: 3_600), "ExpiredProviderToken", 403),
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

    /// Says how old the token is against the lifetime, so the fix is clear at a glance.
    @Test func anExpiredTokensMessageGivesItsAgeAndTheLifetime() {
        let error = APNsProviderTokenError.expiredProviderToken(ageSeconds: 3_724, lifetimeSeconds: 3_600)
        #expect(error.message == "token iat is 3,724 s old; APNs accepts up to 3,600 s: mint a new token")
        #expect(APNsProviderTokenError.expiredProviderToken(ageSeconds: 1_234_567, lifetimeSeconds: 60).message
            .hasPrefix("token iat is 1,234,567 s old; APNs accepts up to 60 s"))
    }

    @Test func invalidTokenDetailAppearsInTheMessage() {
        #expect(APNsProviderTokenError.invalidProviderToken(detail: "kid unknown").message.contains("kid unknown"))
    }
}
