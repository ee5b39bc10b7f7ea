import APNsCore
import MockAPNs
import StrictJSON
import Testing

/// What validation records about a push, accepted or rejected.
@Suite struct ValidationDetailsTests {
    let validator: PushValidator
    let token: String

    init() throws {
        validator = try ValidationFixtures.validator()
        token = try ValidationFixtures.providerToken()
    }

    @Test func anAcceptedPushCarriesEverythingLearned() {
        var request = ValidationFixtures.request(token: token)
        request.set(APNsHeaderName.priority, "5")
        request.set(APNsHeaderName.expiration, "0")
        request.set(APNsHeaderName.collapseID, "c1")
        var auth = ConnectionAuthState(environment: .sandbox)
        let details = validator.validate(request, auth: &auth).details
        #expect(details.deviceToken == ValidationFixtures.device && details.rawDeviceToken == ValidationFixtures.device.hex)
        #expect(details.topic == ValidationFixtures.bundleID && details.pushType == .alert)
        #expect(details.priority == .consideringDevicePower && details.expiration == 0 && details.collapseID == "c1")
        #expect(details.payload == ["aps": ["alert": "Hello"]])
        #expect(details.teamID == ValidationFixtures.teamID && details.keyID == ValidationFixtures.keyID)
        #expect(details.tokenHeader == ["alg": "ES256", "kid": .string(ValidationFixtures.keyID)])
        #expect(details.tokenClaims == ["iss": .string(ValidationFixtures.teamID), "iat": 1_800_000_000])
        #expect(details.tokenFingerprint?.utf8.count == 16)
        #expect(details.lintWarnings.isEmpty)
    }

    @Test func aCanonicalAPNsIDIsKeptForTheEchoEvenWhenTheFirstStepRejects() {
        let id = "0f3c9a7e-51d2-4b0e-8000-00000000002a"
        var request = ValidationFixtures.request(token: token)
        request.set(APNsHeaderName.id, id)
        request.method = "GET"
        var auth = ConnectionAuthState(environment: .sandbox)
        let result = validator.validate(request, auth: &auth)
        #expect(result.reason == .methodNotAllowed)
        #expect(result.details.messageID == id)

        var malformed = ValidationFixtures.request(token: token)
        malformed.set(APNsHeaderName.id, "0f3c9a7e51d24b0e800000000000002a")
        let rejected = validator.validate(malformed, auth: &auth)
        #expect(rejected.reason == .badMessageId)
        #expect(rejected.details.messageID == nil, "APNs answers a malformed apns-id with a fresh one")
    }

    @Test func aRejectedTokenIsStillDecodedButNeverItsSignature() throws {
        let expired = try ValidationFixtures.providerToken(issuedAt: ValidationFixtures.start.addingTimeInterval(-4000))
        var auth = ConnectionAuthState(environment: .sandbox)
        let result = validator.validate(ValidationFixtures.request(token: expired), auth: &auth)
        #expect(result.reason == .expiredProviderToken)
        let details = result.details
        #expect(details.deviceToken == ValidationFixtures.device && details.topic == ValidationFixtures.bundleID)
        #expect(details.tokenHeader == ["alg": "ES256", "kid": .string(ValidationFixtures.keyID)])
        #expect(details.tokenClaims?.description.contains("\"iat\"") == true)
        #expect(details.teamID == nil && details.keyID == nil)
        // Payload is after authentication, so it was never reached.
        #expect(details.payload == nil)
        let signature = String(expired.split(separator: ".")[2])
        #expect(!String(describing: details).contains(signature))
        #expect(details.tokenFingerprint != nil)
        #expect(result.message == "token iat is 4,000 s old; APNs accepts up to 3,600 s: mint a new token", "\(result.message ?? "")")
    }

    @Test func aTokenWithAnUnknownKeyIsShownToo() throws {
        let unknown = try ValidationFixtures.providerToken(keyID: "NOPE000000")
        var auth = ConnectionAuthState(environment: .sandbox)
        let result = validator.validate(ValidationFixtures.request(token: unknown), auth: &auth)
        #expect(result.reason == .invalidProviderToken)
        #expect(result.details.tokenHeader == ["alg": "ES256", "kid": "NOPE000000"])
        #expect(result.message?.contains("NOPE000000") == true)
    }

    /// Rejected before the token is verified (a malformed device token, step 2), the push
    /// still shows which token it carried, never its signature.
    @Test func aTokenOnAPushRejectedEarlyIsShownToo() {
        var request = ValidationFixtures.request(token: token)
        request.path = "/3/device/not-hex"
        var auth = ConnectionAuthState(environment: .sandbox)
        let result = validator.validate(request, auth: &auth)
        #expect(result.reason == .badDeviceToken)
        #expect(result.details.tokenHeader == ["alg": "ES256", "kid": .string(ValidationFixtures.keyID)])
        #expect(result.details.tokenClaims != nil && result.details.tokenFingerprint != nil)
        #expect(!String(describing: result.details).contains(String(token.split(separator: ".")[2])))
        #expect(!auth.hasSeenValidToken, "decoded for the capture, not verified")
    }

    @Test func aMalformedTokenPathIsKeptRaw() {
        var request = ValidationFixtures.request(token: token)
        request.path = "/3/device/not-hex"
        var auth = ConnectionAuthState(environment: .sandbox)
        let details = validator.validate(request, auth: &auth).details
        #expect(details.rawDeviceToken == "not-hex" && details.deviceToken == nil)
    }

    @Test func headerValuesAreRecordedUpToTheFailingOne() {
        var request = ValidationFixtures.request(token: token)
        request.set(APNsHeaderName.collapseID, "c")
        request.set(APNsHeaderName.priority, "7")
        var auth = ConnectionAuthState(environment: .sandbox)
        let result = validator.validate(request, auth: &auth)
        #expect(result.reason == .badPriority)
        #expect(result.details.pushType == .alert && result.details.collapseID == "c" && result.details.priority == nil)
        #expect(result.details.topic == nil)
    }

    @Test func theFingerprintIsStablePerTokenAndDiffersBetweenTokens() throws {
        var auth = ConnectionAuthState(environment: .sandbox)
        let first = validator.validate(ValidationFixtures.request(token: token), auth: &auth).details.tokenFingerprint
        let again = validator.validate(ValidationFixtures.request(token: token), auth: &auth).details.tokenFingerprint
        let other = try ValidationFixtures.providerToken(issuedAt: ValidationFixtures.start.addingTimeInterval(-1))
        let second = validator.validate(ValidationFixtures.request(token: other), auth: &auth).details.tokenFingerprint
        #expect(first == again && first != second && second != nil)
    }
}
