import APNsCore
import MockAPNs
import Testing

/// A push with two faults gets the reason of the one earlier in the documented order.
@Suite struct ValidationOrderTests {
    let validator: PushValidator
    let token: String

    init() throws {
        validator = try ValidationFixtures.validator()
        token = try ValidationFixtures.providerToken()
    }

    func reason(_ change: (inout PushRequest) -> Void) -> APNsReason? {
        var request = ValidationFixtures.request(token: token)
        change(&request)
        var auth = ConnectionAuthState(environment: .sandbox)
        return validator.validate(request, auth: &auth).reason
    }

    /// A header list the transport stopped reading is 431 before anything else: the headers
    /// that would decide later steps may be the ones it dropped, and a token that did fit is
    /// neither verified nor bound.
    @Test func aHeaderListOverTheLimitComesFirst() throws {
        var request = ValidationFixtures.request(token: token)
        request.method = "GET"
        request.oversizedHeaderListLimit = 8000
        var auth = ConnectionAuthState(environment: .sandbox)

        let validation = validator.validate(request, auth: &auth)

        #expect(validation.reason == .requestHeaderFieldsTooLarge && validation.status == 431)
        #expect(validation.outcome(apnsID: "id", uniqueID: nil).status == 431)
        #expect(validation.details.lintWarnings.map(\.code) == [PushLintCode.headerListTooLarge])
        #expect(validation.details.deviceToken != nil, "the path's token is still noted for the capture")
        #expect(auth.tokenState.teamID == nil)
    }

    @Test func methodComesBeforePath() {
        // APNs answers GET / with 405, not 404.
        #expect(reason { $0.method = "GET"; $0.path = "/" } == .methodNotAllowed)
    }

    @Test func pathComesBeforeHeaders() {
        #expect(reason { $0.path = "/3/device/zz"; $0.set(APNsHeaderName.id, "nope") } == .badDeviceToken)
    }

    @Test func duplicateHeadersComeBeforeHeaderValues() {
        #expect(reason {
            $0.headers.add(name: APNsHeaderName.priority, value: "7")
            $0.headers.add(name: APNsHeaderName.priority, value: "7")
        } == .duplicateHeaders)
    }

    @Test func messageIDComesBeforePushType() {
        #expect(reason { $0.set(APNsHeaderName.id, "nope"); $0.set(APNsHeaderName.pushType, "nope") } == .badMessageId)
    }

    @Test func pushTypeComesBeforeCollapseID() {
        #expect(reason {
            $0.set(APNsHeaderName.pushType, "nope")
            $0.set(APNsHeaderName.collapseID, String(repeating: "c", count: 65))
        } == .invalidPushType)
    }

    @Test func collapseIDComesBeforePriority() {
        #expect(reason {
            $0.set(APNsHeaderName.collapseID, String(repeating: "c", count: 65))
            $0.set(APNsHeaderName.priority, "7")
        } == .badCollapseId)
    }

    @Test func priorityComesBeforeExpiration() {
        #expect(reason { $0.set(APNsHeaderName.priority, "7"); $0.set(APNsHeaderName.expiration, "x") } == .badPriority)
    }

    @Test func headerSyntaxComesBeforeAuthentication() {
        #expect(reason { $0.set(APNsHeaderName.expiration, "x"); $0.set(APNsHeaderName.authorization, nil) } == .badExpirationDate)
        #expect(reason { $0.set(APNsHeaderName.topic, "bad topic"); $0.set(APNsHeaderName.authorization, nil) } == .badTopic)
    }

    @Test func missingTokenComesBeforeMissingTopic() {
        #expect(reason { $0.set(APNsHeaderName.authorization, nil); $0.set(APNsHeaderName.topic, nil) } == .missingProviderToken)
    }

    @Test func missingTopicComesBeforeTokenVerification() {
        #expect(reason { $0.set(APNsHeaderName.authorization, "bearer x.y.z"); $0.set(APNsHeaderName.topic, nil) } == .missingTopic)
    }

    @Test func authenticationComesBeforeTopicAndDevice() {
        // An unauthenticated sender learns nothing about apps or devices.
        #expect(reason { $0.set(APNsHeaderName.authorization, "bearer x.y.z"); $0.set(APNsHeaderName.topic, "com.example.unknown") }
            == .invalidProviderToken)
        #expect(reason {
            $0.set(APNsHeaderName.authorization, "bearer x.y.z")
            $0.path = "/3/device/\(ValidationFixtures.unregisteredDevice.hex)"
        } == .invalidProviderToken)
    }

    @Test func topicComesBeforeDevice() {
        #expect(reason {
            $0.set(APNsHeaderName.topic, "com.example.unknown")
            $0.path = "/3/device/\(ValidationFixtures.productionDevice.hex)"
        } == .topicDisallowed)
    }

    @Test func deviceComesBeforePayload() {
        #expect(reason { $0.path = "/3/device/\(ValidationFixtures.otherAppDevice.hex)"; $0.body = [] } == .deviceTokenNotForTopic)
    }

    @Test func payloadComesBeforeDeviceState() {
        // A 410 means the push was otherwise right.
        #expect(reason { $0.path = "/3/device/\(ValidationFixtures.unregisteredDevice.hex)"; $0.body = [] } == .payloadEmpty)
        #expect(reason {
            $0.path = "/3/device/\(ValidationFixtures.expiredDevice.hex)"
            $0.body = Array(repeating: UInt8(ascii: " "), count: 5000)
        } == .payloadTooLarge)
    }

    @Test func certificateProblemsComeBeforeMissingTopic() {
        let identity = CertificateIdentity(
            bundleID: ValidationFixtures.bundleID, topics: ["a.b", "a.b.voip"], environments: [.production])
        var auth = ConnectionAuthState(environment: .sandbox, certificate: identity)
        #expect(validator.validate(ValidationFixtures.certificateRequest(), auth: &auth).reason == .badCertificateEnvironment)
    }

    /// With `acceptsMissingPushType` off, an absent type is answered once the topic is known
    /// (the check shares the step that would infer it): after the header steps,
    /// `MissingProviderToken` and `MissingTopic`, before the token is verified.
    @Test func aMissingPushTypeIsAnsweredBetweenTheTopicAndTheToken() throws {
        var settings = PushValidator.Settings()
        settings.acceptsMissingPushType = false
        let strict = try ValidationFixtures.validator(settings: settings)
        func strictReason(_ change: (inout PushRequest) -> Void) -> APNsReason? {
            var request = ValidationFixtures.request(token: token)
            request.set(APNsHeaderName.pushType, nil)
            change(&request)
            var auth = ConnectionAuthState(environment: .sandbox)
            return strict.validate(request, auth: &auth).reason
        }
        #expect(strictReason { _ in } == .invalidPushType)
        #expect(strictReason { $0.set(APNsHeaderName.collapseID, String(repeating: "c", count: 65)) } == .badCollapseId)
        #expect(strictReason { $0.set(APNsHeaderName.authorization, nil) } == .missingProviderToken)
        #expect(strictReason { $0.set(APNsHeaderName.topic, nil) } == .missingTopic)
        #expect(strictReason { $0.set(APNsHeaderName.authorization, "bearer x.y.z") } == .invalidPushType)
    }
}
