import APNsCore
import COpenSSL
import Foundation
import JWTVerify
import MockAPNs
import Testing

@testable import HTTPTransport

/// Token and certificate authentication as validation applies them.
@Suite struct ValidationAuthTests {
    /// `certs/client.pem` read through the transport's own certificate reader.
    static func clientCertificate() throws -> PeerCertificate {
        let pem = try String(contentsOfFile: ValidationFixtures.certificatePath("client.pem"), encoding: .utf8)
        let bytes = Array(pem.utf8)
        let x509: OpaquePointer? = bytes.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_X509(bio, nil, nil, nil)
        }
        let certificate = try #require(x509)
        defer { X509_free(certificate) }
        return PeerCertificate(borrowing: certificate)
    }

    /// DER of one tag-length-value item with a short length.
    static func der(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] { [tag, UInt8(content.count)] + content }
    static func utf8(_ text: String) -> [UInt8] { der(0x0C, Array(text.utf8)) }

    /// Apple's topics extension: each topic followed by a sequence naming its kind.
    static func topicsExtension(_ topics: [(String, String)]) -> [UInt8] {
        der(0x30, topics.flatMap { utf8($0.0) + der(0x30, utf8($0.1)) })
    }

    /// `certs/client.pem` without its topics extension: a certificate that names only its UID.
    static func uidOnlyCertificate() throws -> PeerCertificate {
        var certificate = try clientCertificate()
        certificate.extensions.removeAll { $0.oid == AppleCertificateOID.topics }
        return certificate
    }

    @Test func clientPemIsReadAsAnAPNsCertificateForBothEnvironmentsAndTheAppsThreeTopics() throws {
        let identity = CertificateIdentity(certificate: try Self.clientCertificate())
        let app = ValidationFixtures.bundleID
        #expect(identity.bundleID == app)
        #expect(identity.environments == [.sandbox, .production])
        #expect(identity.problem == nil)
        // As Apple issues them: the app, its VoIP topic and its complication topic.
        #expect(identity.topics == [app, "\(app).voip", "\(app).complication"])
        #expect(identity.coveredTopics == identity.topics)
        #expect(identity.defaultTopic == nil)
    }

    @Test func clientPemSendsVoIPAndComplicationPushesToItsSuffixedTopics() throws {
        let validator = try ValidationFixtures.validator()
        let app = ValidationFixtures.bundleID
        var auth = ConnectionAuthState(environment: .sandbox, peerCertificate: try Self.clientCertificate())
        for (type, topic) in [(APNsPushType.voip, "\(app).voip"), (.complication, "\(app).complication"), (.alert, app)] {
            var request = ValidationFixtures.certificateRequest()
            request.set(APNsHeaderName.pushType, type.rawValue)
            request.set(APNsHeaderName.topic, topic)
            let result = validator.validate(request, auth: &auth)
            #expect(result.isAccepted, "\(type): \(result.message ?? "")")
            #expect(result.details.topic == topic)
        }
        // location pushes need token authentication, and the certificate does not list the topic.
        var location = ValidationFixtures.certificateRequest(payload: "{}")
        location.set(APNsHeaderName.pushType, APNsPushType.location.rawValue)
        location.set(APNsHeaderName.topic, "\(app).location-query")
        #expect(validator.validate(location, auth: &auth).reason == .topicDisallowed)
        // Three topics: a push must say which.
        #expect(validator.validate(ValidationFixtures.certificateRequest(), auth: &auth).reason == .missingTopic)
    }

    @Test func aCertificateWithoutTheTopicsExtensionCoversOnlyItsUID() throws {
        let identity = CertificateIdentity(certificate: try Self.uidOnlyCertificate())
        let app = ValidationFixtures.bundleID
        #expect(identity.topics.isEmpty && identity.problem == nil)
        #expect(identity.coveredTopics == [app])
        #expect(identity.defaultTopic == app)

        let validator = try ValidationFixtures.validator()
        var auth = ConnectionAuthState(environment: .sandbox, certificate: identity)
        var voip = ValidationFixtures.certificateRequest(payload: "{}")
        voip.set(APNsHeaderName.pushType, APNsPushType.voip.rawValue)
        voip.set(APNsHeaderName.topic, "\(app).voip")
        // pushy also allows .voip and .complication here; the mock allows only the UID.
        #expect(validator.validate(voip, auth: &auth).reason == .topicDisallowed)
    }

    @Test func certificateConnectionPushesWithoutTopicOrTokenToTheCertificatesOnlyTopic() throws {
        let validator = try ValidationFixtures.validator()
        var auth = ConnectionAuthState(environment: .production, peerCertificate: try Self.uidOnlyCertificate())
        var request = ValidationFixtures.certificateRequest()
        request.environment = .production
        request.path = "/3/device/\(ValidationFixtures.productionDevice.hex)"
        let result = validator.validate(request, auth: &auth)
        #expect(result.isAccepted, "\(result.message ?? "")")
        #expect(result.details.topic == ValidationFixtures.bundleID)
        #expect(result.details.teamID == nil && result.details.tokenHeader == nil)
        #expect(auth.allowsConcurrentStreams)
    }

    @Test func topicsExtensionListsTheCoveredTopics() throws {
        var certificate = try Self.uidOnlyCertificate()
        let app = ValidationFixtures.bundleID
        certificate.extensions.append(PeerCertificate.Extension(
            oid: AppleCertificateOID.topics, isCritical: false,
            value: Self.topicsExtension([(app, "app"), ("\(app).complication", "complication")])))
        let identity = CertificateIdentity(certificate: certificate)
        #expect(identity.topics == [app, "\(app).complication"])
        #expect(identity.defaultTopic == nil)

        let validator = try ValidationFixtures.validator()
        var auth = ConnectionAuthState(environment: .sandbox, certificate: identity)
        var voip = ValidationFixtures.certificateRequest(payload: "{}")
        voip.set(APNsHeaderName.pushType, APNsPushType.voip.rawValue)
        voip.set(APNsHeaderName.topic, "\(app).voip")
        // Only the listed topics: this certificate has no VoIP topic.
        #expect(validator.validate(voip, auth: &auth).reason == .topicDisallowed)
        voip.set(APNsHeaderName.pushType, APNsPushType.complication.rawValue)
        voip.set(APNsHeaderName.topic, "\(app).complication")
        #expect(validator.validate(voip, auth: &auth).isAccepted)
    }

    @Test func unreadableTopicsExtensionIsBadCertificate() throws {
        var certificate = try Self.uidOnlyCertificate()
        certificate.extensions.append(PeerCertificate.Extension(oid: AppleCertificateOID.topics, isCritical: false, value: [0x30, 0x05, 0x0C]))
        let identity = CertificateIdentity(certificate: certificate)
        #expect(identity.problem != nil)
        var auth = ConnectionAuthState(environment: .sandbox, certificate: identity)
        let result = try ValidationFixtures.validator().validate(ValidationFixtures.certificateRequest(), auth: &auth)
        #expect(result.reason == .badCertificate && result.status == 403)
    }

    @Test func certificateWithoutUIDOrEnvironmentIsBadCertificate() throws {
        var certificate = try Self.clientCertificate()
        certificate.extensions.removeAll { $0.oid.hasPrefix("1.2.840.113635.100.6.3.") }
        #expect(CertificateIdentity(certificate: certificate).problem != nil)
        certificate = try Self.clientCertificate()
        certificate.subjectAttributes.removeAll { $0.name == "UID" }
        #expect(CertificateIdentity(certificate: certificate).problem != nil)
    }

    @Test func certificateConnectionsIgnoreAuthorization() throws {
        let validator = try ValidationFixtures.validator()
        var auth = ConnectionAuthState(environment: .sandbox, certificate: ValidationFixtures.certificateIdentity)
        var request = ValidationFixtures.certificateRequest()
        request.set(APNsHeaderName.authorization, "bearer not.a.token")
        let result = validator.validate(request, auth: &auth)
        #expect(result.isAccepted)
        #expect(result.details.lintWarnings.map(\.code) == [PushLintCode.authorizationIgnored])
    }

    @Test func aValidTokenOpensTheConnectionToConcurrentStreams() throws {
        let validator = try ValidationFixtures.validator()
        var auth = ConnectionAuthState(environment: .sandbox)
        #expect(!auth.allowsConcurrentStreams)
        var bad = ValidationFixtures.request(token: "x.y.z")
        #expect(validator.validate(bad, auth: &auth).reason == .invalidProviderToken)
        #expect(!auth.hasSeenValidToken)
        // A valid token counts even when the push fails later, for another reason.
        bad = ValidationFixtures.request(token: try ValidationFixtures.providerToken(), payload: "")
        #expect(validator.validate(bad, auth: &auth).reason == .payloadEmpty)
        #expect(auth.hasSeenValidToken && auth.allowsConcurrentStreams)
        #expect(auth.tokenState.teamID == ValidationFixtures.teamID)
    }

    @Test func tokensWithJWTVerifyLeniencyAreAcceptedWithTokenLints() throws {
        let token = try ValidationFixtures.providerToken(claims: [
            "iss": .string(ValidationFixtures.teamID), "iat": "1800000000", "jti": "x",
        ])
        var auth = ConnectionAuthState(environment: .sandbox)
        let result = try ValidationFixtures.validator().validate(ValidationFixtures.request(token: token), auth: &auth)
        #expect(result.isAccepted)
        #expect(Set(result.details.lintWarnings.map(\.code)) == [PushLintCode.tokenIssuedAtString, PushLintCode.tokenUnexpectedClaim])
    }

    @Test func theTokenWorksForEveryPushTypeOfItsApp() throws {
        let validator = try ValidationFixtures.validator()
        var auth = ConnectionAuthState(environment: .sandbox)
        let token = try ValidationFixtures.providerToken()
        for type in APNsPushType.allCases where type != .mdm {
            var request = ValidationFixtures.request(token: token, payload: #"{"aps":{"content-available":1}}"#)
            request.set(APNsHeaderName.pushType, type.rawValue)
            request.set(APNsHeaderName.topic, ValidationFixtures.bundleID + type.topicSuffix)
            request.set(APNsHeaderName.priority, "5")
            let result = validator.validate(request, auth: &auth)
            #expect(result.isAccepted, "\(type): \(result.message ?? "")")
        }
        var mdm = ValidationFixtures.request(token: token)
        mdm.set(APNsHeaderName.pushType, APNsPushType.mdm.rawValue)
        #expect(validator.validate(mdm, auth: &auth).reason == .topicDisallowed)
    }

    @Test func topicSpecificKeysAreCheckedAgainstTheTopicsBundleID() throws {
        let validator = try ValidationFixtures.validator()
        let token = try ValidationFixtures.providerToken(keyID: ValidationFixtures.topicKeyID)
        var auth = ConnectionAuthState(environment: .sandbox)
        var request = ValidationFixtures.request(token: token, payload: "{}")
        request.path = "/3/device/\(ValidationFixtures.otherAppDevice.hex)"
        request.set(APNsHeaderName.pushType, APNsPushType.voip.rawValue)
        request.set(APNsHeaderName.topic, "\(ValidationFixtures.otherBundleID).voip")
        #expect(validator.validate(request, auth: &auth).isAccepted)
        var other = ValidationFixtures.request(token: token)
        var fresh = ConnectionAuthState(environment: .sandbox)
        other.set(APNsHeaderName.topic, ValidationFixtures.bundleID)
        #expect(validator.validate(other, auth: &fresh).reason == .invalidProviderToken)
    }

    @Test func unknownDevicesAreAcceptedWhenTheRegistrySaysSo() throws {
        let validator = try ValidationFixtures.validator(acceptsUnknownDevices: true)
        var request = ValidationFixtures.request(token: try ValidationFixtures.providerToken())
        request.path = "/3/device/\(ValidationFixtures.unknownDevice.hex.uppercased())"
        var auth = ConnectionAuthState(environment: .sandbox)
        let result = validator.validate(request, auth: &auth)
        #expect(result.isAccepted)
        #expect(result.details.deviceToken == ValidationFixtures.unknownDevice)
    }

    @Test func deviceTokensAreCaseInsensitiveAndOfAnyEvenLength() throws {
        let validator = try ValidationFixtures.validator(acceptsUnknownDevices: true)
        let token = try ValidationFixtures.providerToken()
        var auth = ConnectionAuthState(environment: .sandbox)
        for length in [64, 96, 108, 160] {
            var request = ValidationFixtures.request(token: token)
            let sent = String(repeating: "Ab", count: length / 2)
            request.path = "/3/device/" + sent
            let result = validator.validate(request, auth: &auth)
            #expect(result.isAccepted)
            // The capture keeps the token as sent, and its stored form lowercase.
            #expect(result.details.rawDeviceToken == sent)
            #expect(result.details.deviceToken?.hex == sent.lowercased())
        }
        var registered = ValidationFixtures.request(token: token)
        registered.path = "/3/device/\(ValidationFixtures.otherAppDevice.hex.uppercased())"
        #expect(validator.validate(registered, auth: &auth).reason == .deviceTokenNotForTopic)
    }

    /// pushy closes the connection on ExpiredProviderToken, reporting that APNs "wedges"
    /// it; the mock leaves it usable, so a fresh token on the same connection is accepted.
    @Test func anExpiredTokenLeavesTheConnectionUsableForAFreshOne() throws {
        let clock = TestClock()
        let validator = try ValidationFixtures.validator(clock: clock)
        var auth = ConnectionAuthState(environment: .sandbox)
        let first = try ValidationFixtures.providerToken()
        #expect(validator.validate(ValidationFixtures.request(token: first), auth: &auth).isAccepted)
        clock.advance(by: 3601)
        let expired = validator.validate(ValidationFixtures.request(token: first), auth: &auth)
        #expect(expired.verdict == .rejected(reason: .expiredProviderToken, timestamp: nil, isFatal: false))
        let fresh = try ValidationFixtures.providerToken(issuedAt: ValidationFixtures.start.addingTimeInterval(3601))
        let result = validator.validate(ValidationFixtures.request(token: fresh), auth: &auth)
        #expect(result.isAccepted, "\(result.message ?? "")")
    }

    @Test func fatalReasonsAreASetting() throws {
        var settings = PushValidator.Settings()
        settings.goAwayReasons = [.expiredProviderToken]
        let validator = try ValidationFixtures.validator(settings: settings)
        let old = try ValidationFixtures.providerToken(issuedAt: ValidationFixtures.start.addingTimeInterval(-7200))
        var auth = ConnectionAuthState(environment: .sandbox)
        let result = validator.validate(ValidationFixtures.request(token: old), auth: &auth)
        #expect(result.verdict == .rejected(reason: .expiredProviderToken, timestamp: nil, isFatal: true))
        #expect(result.outcome(apnsID: "a", uniqueID: "u") == .rejected(
            .expiredProviderToken, apnsID: "a", uniqueID: "u", connectionAction: .goAway, explanation: result.message))
    }
}
