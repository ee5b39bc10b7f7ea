import APNsCore
import Foundation
import HTTPTransport
import JWTVerify
import MockAPNs
import Testing

/// Every reason validation can give, each reached by a push that differs from a valid one
/// in one respect.
@Suite struct ValidationReasonTests {
    let validator: PushValidator
    let token: String

    init() throws {
        validator = try ValidationFixtures.validator()
        token = try ValidationFixtures.providerToken()
    }

    func validate(_ request: PushRequest, environment: APNsEnvironment = .sandbox, certificate: CertificateIdentity? = nil) -> PushDecision {
        var auth = ConnectionAuthState(environment: environment, certificate: certificate)
        return validator.validate(request, auth: &auth)
    }

    func expectRejected(_ result: PushDecision, _ reason: APNsReason, status: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.reason == reason, "\(result.message ?? "accepted")", sourceLocation: sourceLocation)
        #expect(result.status == status, sourceLocation: sourceLocation)
        #expect(reason.status == status, sourceLocation: sourceLocation)
    }

    func valid() -> PushRequest { ValidationFixtures.request(token: token) }

    @Test func theBaselinePushIsAccepted() {
        let result = validate(valid())
        #expect(result.isAccepted, "\(result.message ?? "")")
        #expect(result.status == 200 && result.verdict == .accepted)
    }

    @Test func methodOtherThanPostIsMethodNotAllowed() {
        var request = valid()
        request.method = "GET"
        expectRejected(validate(request), .methodNotAllowed, status: 405)
    }

    @Test(arguments: ["/", "/3/devices/aaaa", "/2/device/aaaa", "/3/device/aaaa/extra", "/3/device/aaaa?x=1", "/3/broadcast"])
    func pathOutsideDevicePushesIsBadPath(path: String) {
        var request = valid()
        request.path = path
        expectRejected(validate(request), .badPath, status: 404)
    }

    @Test(arguments: ["/3/device/", "/3/device"])
    func pathWithoutTokenIsMissingDeviceToken(path: String) {
        var request = valid()
        request.path = path
        expectRejected(validate(request), .missingDeviceToken, status: 400)
    }

    @Test(arguments: ["xyz", "abc", "aa bb", "ééé"])
    func malformedTokenIsBadDeviceToken(text: String) {
        var request = valid()
        request.path = "/3/device/\(text)"
        expectRejected(validate(request), .badDeviceToken, status: 400)
    }

    @Test func tokenOfTheOtherEnvironmentIsBadDeviceToken() {
        var request = valid()
        request.path = "/3/device/\(ValidationFixtures.productionDevice.hex)"
        expectRejected(validate(request), .badDeviceToken, status: 400)
    }

    @Test func unknownTokenIsBadDeviceTokenWhenTheRegistryListsDevices() {
        var request = valid()
        request.path = "/3/device/\(ValidationFixtures.unknownDevice.hex)"
        expectRejected(validate(request), .badDeviceToken, status: 400)
    }

    @Test(arguments: [APNsHeaderName.topic, APNsHeaderName.id, APNsHeaderName.authorization, "apns-custom"])
    func repeatedAPNsHeaderIsDuplicateHeaders(name: String) {
        var request = valid()
        let value = name == APNsHeaderName.id ? "123e4567-e89b-12d3-a456-426614174000" : request.headers[name] ?? "x"
        // The same value twice: a repeat is refused even when it agrees with itself.
        if request.headers[name] == nil { request.headers.add(name: name, value: value) }
        request.headers.add(name: name, value: value)
        expectRejected(validate(request), .duplicateHeaders, status: 400)
    }

    @Test func headerNamesAreReadInAnyLetterCase() {
        var request = ValidationFixtures.request(token: nil)
        request.headers = HTTPHeaders()
        request.headers.add(name: "Authorization", value: "bearer \(token)")
        request.headers.add(name: "APNS-Topic", value: ValidationFixtures.bundleID)
        request.headers.add(name: "Apns-Push-Type", value: "alert")
        request.headers.add(name: "apns-PRIORITY", value: "5")
        request.headers.add(name: "APNS-ID", value: "123e4567-e89b-12d3-a456-426614174000")
        request.headers.add(name: "Apns-Collapse-Id", value: "c1")
        request.headers.add(name: "APNS-Expiration", value: "0")
        request.headers.add(name: "APNS-Custom", value: "x")
        var auth = ConnectionAuthState(environment: .sandbox)
        let result = validator.validate(request, auth: &auth)
        #expect(result.isAccepted)
        #expect(result.details.priority == .consideringDevicePower && result.details.collapseID == "c1")
        #expect(result.details.expiration == 0 && result.details.messageID == "123e4567-e89b-12d3-a456-426614174000")
        #expect(result.details.lintWarnings.map(\.path) == ["apns-custom"], "an unknown apns-* name is reported lowercased")

        // Names of the same length as a known one, but not it, are unknown apns-* names.
        request.headers.add(name: "apns-topix", value: "x")
        #expect(validator.validate(request, auth: &auth).details.lintWarnings.map(\.path) == ["apns-custom", "apns-topix"])
        // A repeat in another letter case is still a repeat.
        request.headers.add(name: "apns-topic", value: ValidationFixtures.bundleID)
        expectRejected(validator.validate(request, auth: &auth), .duplicateHeaders, status: 400)
    }

    @Test(arguments: ["not-a-uuid", "123e4567e89b12d3a456426614174000", "123e4567-e89b-12d3-a456-42661417400g", ""])
    func malformedApnsIDIsBadMessageId(id: String) {
        var request = valid()
        request.set(APNsHeaderName.id, id)
        expectRejected(validate(request), .badMessageId, status: 400)
    }

    @Test(arguments: ["Alert", "ALERT", "liveActivity", "LiveActivity", "notification", "", "voip "])
    func unknownPushTypeIsInvalidPushType(type: String) {
        var request = valid()
        request.set(APNsHeaderName.pushType, type)
        expectRejected(validate(request), .invalidPushType, status: 400)
    }

    @Test func missingPushTypeIsInvalidPushTypeWhenTheSettingsRequireIt() throws {
        var settings = PushValidator.Settings()
        settings.acceptsMissingPushType = false
        let strict = try ValidationFixtures.validator(settings: settings)
        var request = valid()
        request.set(APNsHeaderName.pushType, nil)
        var auth = ConnectionAuthState(environment: .sandbox)
        expectRejected(strict.validate(request, auth: &auth), .invalidPushType, status: 400)
    }

    @Test func tokenAuthWithoutTopicIsMissingTopic() {
        var request = valid()
        request.set(APNsHeaderName.topic, nil)
        expectRejected(validate(request), .missingTopic, status: 400)
    }

    @Test func certificateCoveringSeveralTopicsWithoutTopicIsMissingTopic() {
        let identity = CertificateIdentity(
            bundleID: ValidationFixtures.bundleID,
            topics: [ValidationFixtures.bundleID, "\(ValidationFixtures.bundleID).voip"],
            environments: [.sandbox])
        expectRejected(validate(ValidationFixtures.certificateRequest(), certificate: identity), .missingTopic, status: 400)
    }

    @Test(arguments: ["", " ", "com.example app", "com..example", ".com.example", "com.example.", "com/example"])
    func malformedTopicIsBadTopic(topic: String) {
        var request = valid()
        request.set(APNsHeaderName.topic, topic)
        expectRejected(validate(request), .badTopic, status: 400)
    }

    @Test func unregisteredAppIsTopicDisallowed() {
        var request = valid()
        request.set(APNsHeaderName.topic, "com.example.unknown")
        expectRejected(validate(request), .topicDisallowed, status: 400)
    }

    @Test func voipPushToTheBareBundleIDIsTopicDisallowed() {
        var request = valid()
        request.set(APNsHeaderName.pushType, APNsPushType.voip.rawValue)
        expectRejected(validate(request), .topicDisallowed, status: 400)
    }

    @Test func alertPushToASuffixedTopicIsTopicDisallowed() {
        var request = valid()
        request.set(APNsHeaderName.topic, "\(ValidationFixtures.bundleID).voip")
        expectRejected(validate(request), .topicDisallowed, status: 400)
    }

    @Test func topicOutsideTheCertificateIsTopicDisallowed() {
        var request = ValidationFixtures.certificateRequest()
        request.set(APNsHeaderName.topic, ValidationFixtures.otherBundleID)
        expectRejected(validate(request, certificate: ValidationFixtures.certificateIdentity), .topicDisallowed, status: 400)
    }

    @Test func deviceOfAnotherAppIsDeviceTokenNotForTopic() {
        var request = valid()
        request.path = "/3/device/\(ValidationFixtures.otherAppDevice.hex)"
        expectRejected(validate(request), .deviceTokenNotForTopic, status: 400)
    }

    @Test func collapseIDOver64BytesIsBadCollapseId() {
        var request = valid()
        request.set(APNsHeaderName.collapseID, String(repeating: "é", count: 33))  // 33 characters, 66 bytes
        expectRejected(validate(request), .badCollapseId, status: 400)
        request.set(APNsHeaderName.collapseID, String(repeating: "c", count: 64))
        #expect(validate(request).isAccepted)
    }

    @Test(arguments: ["0", "2", "11", "high", "", "-10"])
    func priorityOtherThan1Or5Or10IsBadPriority(priority: String) {
        var request = valid()
        request.set(APNsHeaderName.priority, priority)
        expectRejected(validate(request), .badPriority, status: 400)
    }

    @Test func backgroundPushAtPriority10IsBadPriority() {
        var request = ValidationFixtures.request(token: token, payload: #"{"aps":{"content-available":1}}"#)
        request.set(APNsHeaderName.pushType, APNsPushType.background.rawValue)
        request.set(APNsHeaderName.priority, "10")
        expectRejected(validate(request), .badPriority, status: 400)
        // Absent means 10 as well.
        request.set(APNsHeaderName.priority, nil)
        expectRejected(validate(request), .badPriority, status: 400)
        request.set(APNsHeaderName.priority, "5")
        #expect(validate(request).isAccepted)
    }

    @Test(arguments: ["tomorrow", "-1", "1.5", " 1", "99999999999999999999", ""])
    func malformedExpirationIsBadExpirationDate(expiration: String) {
        var request = valid()
        request.set(APNsHeaderName.expiration, expiration)
        expectRejected(validate(request), .badExpirationDate, status: 400)
    }

    @Test(arguments: [nil, "", "   ", "bearer", "Bearer  "] as [String?])
    func absentOrEmptyAuthorizationIsMissingProviderToken(header: String?) {
        var request = valid()
        request.set(APNsHeaderName.authorization, header)
        expectRejected(validate(request), .missingProviderToken, status: 403)
    }

    @Test func badSignatureIsInvalidProviderToken() {
        var request = valid()
        // One signature character changed, always to a different one: writing fixed characters
        // over a random ECDSA signature left it intact 1 time in 256.
        let replaced = token.dropLast().last == "A" ? "B" : "A"
        request.set(APNsHeaderName.authorization, "bearer \(token.dropLast(2))\(replaced)\(token.suffix(1))")
        expectRejected(validate(request), .invalidProviderToken, status: 403)
    }

    @Test func otherSchemeIsInvalidProviderToken() {
        var request = valid()
        request.set(APNsHeaderName.authorization, "Basic \(token)")
        expectRejected(validate(request), .invalidProviderToken, status: 403)
    }

    @Test func tokenOlderThanAnHourIsExpiredProviderToken() throws {
        let old = try ValidationFixtures.providerToken(issuedAt: ValidationFixtures.start.addingTimeInterval(-3601))
        expectRejected(validate(ValidationFixtures.request(token: old)), .expiredProviderToken, status: 403)
    }

    @Test func keyScopedToTheOtherEnvironmentIsBadEnvironmentKeyIdInToken() throws {
        let production = try ValidationFixtures.providerToken(keyID: ValidationFixtures.productionOnlyKeyID)
        expectRejected(validate(ValidationFixtures.request(token: production)), .badEnvironmentKeyIdInToken, status: 403)
    }

    @Test func secondTeamOnOneConnectionIsUnrelatedKeyIdInToken() throws {
        var auth = ConnectionAuthState(environment: .sandbox)
        #expect(validator.validate(valid(), auth: &auth).isAccepted)
        let other = try ValidationFixtures.providerToken(keyID: ValidationFixtures.otherTeamKeyID, teamID: ValidationFixtures.otherTeamID)
        expectRejected(validator.validate(ValidationFixtures.request(token: other), auth: &auth), .unrelatedKeyIdInToken, status: 403)
    }

    @Test func newTokenWithinTwentyMinutesIsTooManyProviderTokenUpdates() throws {
        var auth = ConnectionAuthState(environment: .sandbox)
        #expect(validator.validate(valid(), auth: &auth).isAccepted)
        let newer = try ValidationFixtures.providerToken(issuedAt: ValidationFixtures.start.addingTimeInterval(-60))
        expectRejected(validator.validate(ValidationFixtures.request(token: newer), auth: &auth), .tooManyProviderTokenUpdates, status: 429)
    }

    @Test func certificateWithoutAppleExtensionsIsBadCertificateAndFatal() {
        let identity = CertificateIdentity(bundleID: ValidationFixtures.bundleID, environments: [], problem: "no Apple extensions")
        let result = validate(ValidationFixtures.certificateRequest(), certificate: identity)
        expectRejected(result, .badCertificate, status: 403)
        #expect(result.verdict == .rejected(reason: .badCertificate, timestamp: nil, isFatal: true))
        #expect(result.outcome(apnsID: "id", uniqueID: nil).connectionAction == .goAway)
    }

    @Test func productionCertificateOnSandboxIsBadCertificateEnvironmentAndFatal() {
        let identity = CertificateIdentity(bundleID: ValidationFixtures.bundleID, environments: [.production])
        let result = validate(ValidationFixtures.certificateRequest(), certificate: identity)
        expectRejected(result, .badCertificateEnvironment, status: 403)
        #expect(result.verdict == .rejected(reason: .badCertificateEnvironment, timestamp: nil, isFatal: true))
    }

    @Test func emptyBodyIsPayloadEmpty() {
        expectRejected(validate(ValidationFixtures.request(token: token, payload: "")), .payloadEmpty, status: 400)
    }

    @Test(arguments: [#"{"aps":"#, "hello", #"{"a":1,"a":2}"#])
    func bodyThatIsNotJSONIsPayloadEmpty(body: String) {
        let result = validate(ValidationFixtures.request(token: token, payload: body))
        expectRejected(result, .payloadEmpty, status: 400)
        #expect(result.details.lintWarnings.map(\.code) == [PushLintCode.payloadNotJSON])
    }

    @Test(arguments: ["[]", "1", #""aps""#, "null"])
    func jsonThatIsNotAnObjectIsPayloadEmpty(body: String) {
        let result = validate(ValidationFixtures.request(token: token, payload: body))
        expectRejected(result, .payloadEmpty, status: 400)
        #expect(result.details.lintWarnings.map(\.code) == [PushLintCode.payloadNotObject])
    }

    @Test func payloadOver4096BytesIsPayloadTooLarge() {
        func payload(_ size: Int) -> String {
            let prefix = #"{"aps":{"alert":""#
            let suffix = #""}}"#
            return prefix + String(repeating: "x", count: size - prefix.utf8.count - suffix.utf8.count) + suffix
        }
        #expect(validate(ValidationFixtures.request(token: token, payload: payload(4096))).isAccepted)
        expectRejected(validate(ValidationFixtures.request(token: token, payload: payload(4097))), .payloadTooLarge, status: 413)
    }

    @Test func voipPayloadMayReach5120Bytes() {
        func request(_ size: Int) -> PushRequest {
            let prefix = #"{"data":""#
            var request = ValidationFixtures.request(
                token: token, payload: prefix + String(repeating: "x", count: size - prefix.utf8.count - 2) + #""}"#)
            request.set(APNsHeaderName.pushType, APNsPushType.voip.rawValue)
            request.set(APNsHeaderName.topic, "\(ValidationFixtures.bundleID).voip")
            return request
        }
        #expect(validate(request(5120)).isAccepted)
        expectRejected(validate(request(5121)), .payloadTooLarge, status: 413)
    }

    @Test func unregisteredDeviceIs410WithTheTimeInMilliseconds() {
        var request = valid()
        request.path = "/3/device/\(ValidationFixtures.unregisteredDevice.hex)"
        let result = validate(request)
        expectRejected(result, .unregistered, status: 410)
        #expect(result.verdict == .rejected(reason: .unregistered, timestamp: 1_700_000_000_123, isFatal: false))
        #expect(result.outcome(apnsID: "id", uniqueID: nil).timestamp == 1_700_000_000_123)
    }

    @Test func expiredDeviceIsExpiredToken() {
        var request = valid()
        request.path = "/3/device/\(ValidationFixtures.expiredDevice.hex)"
        let result = validate(request)
        expectRejected(result, .expiredToken, status: 410)
        #expect(result.verdict == .rejected(reason: .expiredToken, timestamp: nil, isFatal: false))
    }
}
