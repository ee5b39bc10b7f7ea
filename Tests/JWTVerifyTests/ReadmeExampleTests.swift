import Foundation
import JWTVerify
import Testing

/// The README's `JWTVerify` example, kept compiling and true.
@Suite struct ReadmeExampleTests {
    @Test func mintAndVerifyAsTheReadmeShows() throws {
        let key = try TestKeys.apnsPrivateKey()  // certs/AuthKey_ABC123DEFG.p8
        let token = try JWTSigner(key: key, keyID: "ABC123DEFG")
            .makeProviderToken(teamID: "TEAM000001", issuedAt: Date())

        let verifier = APNsProviderTokenVerifier(keys: [
            "ABC123DEFG": APNsRegisteredKey(publicKey: key.publicKey, teamID: "TEAM000001"),
        ])
        var connection = APNsConnectionTokenState(environment: .production)
        let accepted = try verifier.verify(authorization: "bearer \(token)", connection: &connection)
        #expect(accepted.teamID == "TEAM000001")
        #expect(accepted.lintWarnings.isEmpty)

        let stale = try JWTSigner(key: key, keyID: "ABC123DEFG")
            .makeProviderToken(teamID: "TEAM000001", issuedAt: Date().addingTimeInterval(-3700))
        var other = APNsConnectionTokenState(environment: .production)
        let error = #expect(throws: APNsProviderTokenError.self) {
            try verifier.verify(authorization: "bearer \(stale)", connection: &other)
        }
        #expect(error?.status == 403)
        #expect(error?.reason == "ExpiredProviderToken")
        // The age is the clock's against iat, so a slow run may add a second.
        #expect(error?.message.hasPrefix("token iat is 3,70") == true, "\(String(describing: error))")
        #expect(error?.message.contains("s old; APNs accepts up to 3,600 s") == true)
    }
}
