import APNsCore
import Foundation
import HTTPTransport
import JWTVerify
import MockAPNs
import PushTestSupport
import Testing

/// Every reason the mock can answer with, reached over real HTTP/2 and TLS with our client.
///
/// Not reached here: `IdleTimeout`, which is GOAWAY debug data on an idle connection, not an
/// answer (MockAcceptanceConnectionTests covers it), and `Forbidden` from validation
/// (no check produces it); `Forbidden` is reached through a status fault rule instead.
@Suite(.timeLimit(.minutes(3)))
struct MockAcceptanceReasonTests {
    /// One reason: the requests sent in order on one fresh connection; the last one is answered with `reason`.
    struct Case: Sendable, CustomStringConvertible {
        var reason: APNsReason
        var status: Int
        var note = ""
        var requests: @Sendable (APNsEnvironment) throws -> [HTTPClientRequest]

        var description: String { reason.wireValue + (note.isEmpty ? "" : " (\(note))") }
    }

    static let unregisteredSince = Date(timeIntervalSince1970: 1_700_000_000.123)
    static let unregisteredMilliseconds: Int64 = 1_700_000_000_123
    static let otherTeam = "TEAM000002"
    static let otherApp = "com.other.app"

    /// A 64-hex device token per environment: `a1a1…` in sandbox, `a2a2…` in production.
    static func device(_ hex: Character, _ environment: APNsEnvironment) -> String {
        String(repeating: "\(hex)\(environment == .sandbox ? 1 : 2)", count: 32)
    }

    /// The key ID registered only for the environment that is not `environment`.
    static func keyOutside(_ environment: APNsEnvironment) -> String {
        environment == .sandbox ? "PRODONLY01" : "SANDONLY01"
    }

    /// Devices in each state, a second team, environment-scoped keys and fault rules per device.
    static func configure(_ configuration: inout MockConfiguration) {
        configuration.registry.keys["XYZ987WXYZ"]?.teamID = otherTeam
        if let otherKey = configuration.registry.keys["XYZ987WXYZ"]?.publicKey {
            configuration.registry.keys["PRODONLY01"] = APNsRegisteredKey(publicKey: otherKey, teamID: Acceptance.teamID, environments: .production)
            configuration.registry.keys["SANDONLY01"] = APNsRegisteredKey(publicKey: otherKey, teamID: Acceptance.teamID, environments: .sandbox)
        }
        for environment in [APNsEnvironment.sandbox, .production] {
            let other: APNsEnvironment = environment == .sandbox ? .production : .sandbox
            let devices: [(Character, String, APNsEnvironment, DeviceState)] = [
                ("a", Acceptance.topic, environment, .unregistered(since: unregisteredSince)),
                ("b", Acceptance.topic, environment, .expired),
                ("c", otherApp, environment, .active),
                ("d", Acceptance.topic, other, .active),
            ]
            for (hex, bundleID, registeredIn, state) in devices {
                guard let token = DeviceToken(device(hex, environment)) else { continue }
                configuration.registry.devices[token] = RegisteredDevice(token: token, bundleID: bundleID, environment: registeredIn, state: state)
            }
            let faults: [(Character, String, FaultAction)] = [
                ("e", "limit", .rateLimit(FaultRateLimit(limit: 1, window: .seconds(600)))),
                ("f", "boom", .status(500, reason: .internalServerError)),
                ("7", "down", .unavailable(.serviceUnavailable)),
                ("8", "bye", .unavailable(.shutdown)),
                ("9", "nope", .status(403, reason: .forbidden)),
            ]
            for (hex, id, action) in faults {
                let match = FaultMatch(deviceToken: DeviceToken(device(hex, environment)))
                configuration.faults.append(FaultRule(id: "\(id)-\(environment.rawValue)", match: match, action: action))
            }
        }
    }

    static let cases: [Case] = [
        Case(reason: .methodNotAllowed, status: 405) { _ in [Acceptance.push(token: try Acceptance.providerToken(), body: "", method: "GET")] },
        Case(reason: .badPath, status: 404) { _ in [Acceptance.push(token: try Acceptance.providerToken(), path: "/3/devices/abcd")] },
        Case(reason: .missingDeviceToken, status: 400) { _ in [Acceptance.push(token: try Acceptance.providerToken(), path: "/3/device/")] },
        Case(reason: .badDeviceToken, status: 400, note: "malformed") { _ in [Acceptance.push(token: try Acceptance.providerToken(), device: "xyz")] },
        Case(reason: .badDeviceToken, status: 400, note: "other environment") { environment in
            [Acceptance.push(token: try Acceptance.providerToken(), device: device("d", environment))]
        },
        Case(reason: .duplicateHeaders, status: 400) { _ in
            [Acceptance.push(token: try Acceptance.providerToken(), extra: [("apns-priority", "10"), ("apns-priority", "10")])]
        },
        Case(reason: .badMessageId, status: 400) { _ in [Acceptance.push(token: try Acceptance.providerToken(), extra: [("apns-id", "nope")])] },
        Case(reason: .invalidPushType, status: 400) { _ in [Acceptance.push(token: try Acceptance.providerToken(), pushType: "Alert")] },
        Case(reason: .badCollapseId, status: 400) { _ in
            [Acceptance.push(token: try Acceptance.providerToken(), extra: [("apns-collapse-id", String(repeating: "x", count: 65))])]
        },
        Case(reason: .badPriority, status: 400) { _ in [Acceptance.push(token: try Acceptance.providerToken(), extra: [("apns-priority", "7")])] },
        Case(reason: .badExpirationDate, status: 400) { _ in [Acceptance.push(token: try Acceptance.providerToken(), extra: [("apns-expiration", "soon")])] },
        Case(reason: .badTopic, status: 400) { _ in [Acceptance.push(token: try Acceptance.providerToken(), topic: "bad topic")] },
        Case(reason: .missingProviderToken, status: 403) { _ in [Acceptance.push(token: nil)] },
        Case(reason: .missingTopic, status: 400) { _ in [Acceptance.push(token: try Acceptance.providerToken(), topic: nil)] },
        Case(reason: .invalidProviderToken, status: 403) { _ in [Acceptance.push(token: "not.a.token")] },
        Case(reason: .expiredProviderToken, status: 403) { _ in [Acceptance.push(token: try Acceptance.providerToken(issuedAt: Date() - 7200))] },
        Case(reason: .badEnvironmentKeyIdInToken, status: 403) { environment in
            [Acceptance.push(token: try Acceptance.providerToken(keyID: keyOutside(environment), keyFile: "XYZ987WXYZ"))]
        },
        Case(reason: .unrelatedKeyIdInToken, status: 403) { _ in
            [Acceptance.push(token: try Acceptance.providerToken()),
             Acceptance.push(token: try Acceptance.providerToken(keyID: "XYZ987WXYZ", teamID: otherTeam))]
        },
        Case(reason: .tooManyProviderTokenUpdates, status: 429) { _ in
            [Acceptance.push(token: try Acceptance.providerToken()),
             Acceptance.push(token: try Acceptance.providerToken(issuedAt: Date() - 10))]
        },
        Case(reason: .topicDisallowed, status: 400) { _ in [Acceptance.push(token: try Acceptance.providerToken(), topic: otherApp)] },
        Case(reason: .deviceTokenNotForTopic, status: 400) { environment in
            [Acceptance.push(token: try Acceptance.providerToken(), device: device("c", environment))]
        },
        Case(reason: .payloadEmpty, status: 400) { _ in [Acceptance.push(token: try Acceptance.providerToken(), body: "")] },
        Case(reason: .payloadEmpty, status: 400, note: "not JSON") { _ in [Acceptance.push(token: try Acceptance.providerToken(), body: "{")] },
        Case(reason: .payloadTooLarge, status: 413) { _ in
            [Acceptance.push(token: try Acceptance.providerToken(), body: #"{"aps":{"alert":"\#(String(repeating: "x", count: 4096))"}}"#)]
        },
        Case(reason: .unregistered, status: 410) { environment in
            [Acceptance.push(token: try Acceptance.providerToken(), device: device("a", environment))]
        },
        Case(reason: .expiredToken, status: 410) { environment in
            [Acceptance.push(token: try Acceptance.providerToken(), device: device("b", environment))]
        },
        Case(reason: .tooManyRequests, status: 429, note: "rate-limit fault") { environment in
            [Acceptance.push(token: try Acceptance.providerToken(), device: device("e", environment)),
             Acceptance.push(token: try Acceptance.providerToken(), device: device("e", environment))]
        },
        Case(reason: .internalServerError, status: 500, note: "status fault") { environment in
            [Acceptance.push(token: try Acceptance.providerToken(), device: device("f", environment))]
        },
        Case(reason: .serviceUnavailable, status: 503, note: "unavailable fault") { environment in
            [Acceptance.push(token: try Acceptance.providerToken(), device: device("7", environment))]
        },
        Case(reason: .shutdown, status: 503, note: "unavailable fault") { environment in
            [Acceptance.push(token: try Acceptance.providerToken(), device: device("8", environment))]
        },
        Case(reason: .forbidden, status: 403, note: "status fault only") { environment in
            [Acceptance.push(token: try Acceptance.providerToken(), device: device("9", environment))]
        },
    ]

    /// The broadcast and channel management reasons, which BroadcastReasonTests answers.
    static let broadcastReasons: [APNsReason] = [
        .featureNotEnabled, .missingChannelId, .badChannelId, .channelNotRegistered, .badRequestParams, .badRequestPayload,
        .missingPushType, .cannotCreateChannelConfig, .topicMismatch,
    ]

    @Test func everyReasonIsAnsweredAsAPNsDoesOnBothListeners() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Acceptance.certs, configure: Self.configure)
        defer { mock.stop() }
        let notCovered = Set(APNsReason.allKnown).subtracting(Self.cases.map(\.reason))
        #expect(notCovered == Set([.idleTimeout, .badCertificate, .badCertificateEnvironment] + Self.broadcastReasons),
                "the certificate reasons have their own test, the broadcast ones BroadcastReasonTests")

        for environment in [APNsEnvironment.sandbox, .production] {
            let url = environment == .sandbox ? mock.sandboxURL : mock.productionURL
            for testCase in Self.cases {
                let client = try Acceptance.client(for: url, trust: mock.trustRootsPath)
                var responses: [HTTPClientResponse] = []
                do {
                    for request in try testCase.requests(environment) { responses.append(try await client.send(request)) }
                } catch {
                    await client.close()
                    Issue.record("\(testCase) on \(environment): \(error)")
                    continue
                }
                await client.close()
                let label = "\(testCase) on \(environment)"
                guard let response = responses.popLast() else { continue }
                #expect(responses.allSatisfy { $0.status == 200 }, "\(label): earlier pushes \(responses.map(\.status))")
                Self.expectAnswer(response, status: testCase.status, reason: testCase.reason, environment: environment, label: label)
            }
        }
    }

    /// Status, JSON body, content type, `apns-id`, `apns-unique-id` only on sandbox, `timestamp` only on 410 Unregistered.
    static func expectAnswer(
        _ response: HTTPClientResponse, status: Int, reason: APNsReason, environment: APNsEnvironment, label: String
    ) {
        #expect(response.status == status, "\(label)")
        #expect(response.headers["content-type"] == "application/json", "\(label)")
        #expect(response.headers["apns-id"].map(APNsIDGenerator.isCanonicalUUID) == true, "\(label)")
        #expect((response.headers["apns-unique-id"] != nil) == (environment == .sandbox), "\(label)")
        if let unique = response.headers["apns-unique-id"] {
            #expect(APNsIDGenerator.isCanonicalUUID(unique), "\(label)")
        }
        let body = String(decoding: response.body, as: UTF8.self)
        let json = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        #expect(json?["reason"] as? String == reason.wireValue, "\(label): \(body)")
        if reason == .unregistered {
            #expect(Set(json?.keys.map { $0 } ?? []) == ["reason", "timestamp"], "\(label): \(body)")
            #expect((json?["timestamp"] as? NSNumber)?.int64Value == unregisteredMilliseconds, "\(label): \(body)")
        } else {
            #expect(body == #"{"reason":"\#(reason.wireValue)"}"#, "\(label)")
        }
    }

    /// One push on a fresh connection with a client certificate; waits briefly for a GOAWAY when `expectGoAway`.
    static func sendWithCertificate(
        _ request: HTTPClientRequest, to url: String, trust: String?, identity: (certificate: String, key: String),
        expectGoAway: Bool
    ) async throws -> (response: HTTPClientResponse, goAway: HTTP2GoAway?, state: HTTP2ClientState) {
        let client = try Acceptance.client(for: url, trust: trust, identity: identity)
        let response: HTTPClientResponse
        do {
            response = try await client.send(request)
        } catch {
            await client.close()
            throw error
        }
        if expectGoAway { _ = await pollUntil { client.lastGoAway != nil } }
        let goAway = client.lastGoAway
        let state = client.state
        await client.close()
        return (response, goAway, state)
    }

    @Test func certificateReasonsAreAnsweredOnTheirStreamThenGOAWAY() async throws {
        let directory = try TestCertificates.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let issued = try await onThread {
            let plain = try TestCertificates.issue(
                "plain", subject: "/CN=not an APNs certificate/O=swift-apns-mock (TESTING ONLY)", extensions: [], in: directory)
            let sandboxOnly = try TestCertificates.issue(
                "sandbox", subject: "/UID=\(Acceptance.topic)/CN=Apple Development IOS Push Services: \(Acceptance.topic)/OU=\(Acceptance.teamID)",
                extensions: ["\(AppleCertificateOID.developmentEnvironment)=ASN1:NULL"], in: directory)
            return [plain.certificate, plain.key, sandboxOnly.certificate, sandboxOnly.key]
        }
        let plain = (certificate: issued[0], key: issued[1]), sandboxOnly = (certificate: issued[2], key: issued[3])
        let both = (certificate: "\(Acceptance.certs)/client.pem", key: "\(Acceptance.certs)/client.key")
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Acceptance.certs) {
            $0.server.clientCAPath = "\(Acceptance.certs)/ca.pem"
        }
        defer { mock.stop() }
        let push = Acceptance.push(token: nil)

        for (environment, url) in [(APNsEnvironment.sandbox, mock.sandboxURL), (.production, mock.productionURL)] {
            let good = try await Self.sendWithCertificate(push, to: url, trust: mock.trustRootsPath, identity: both, expectGoAway: false)
            #expect(good.response.status == 200, "the test client certificate is valid for \(environment)")
            #expect(good.goAway == nil)

            let bad = try await Self.sendWithCertificate(push, to: url, trust: mock.trustRootsPath, identity: plain, expectGoAway: true)
            Self.expectAnswer(bad.response, status: 403, reason: .badCertificate, environment: environment, label: "plain on \(environment)")
            // The server lingers after GOAWAY, so no TCP reset can destroy it before the client reads it.
            #expect(bad.goAway.map { $0.debugText == #"{"reason":"BadCertificate"}"# && $0.errorCode == .noError } == true,
                    "\(environment) \(bad.state) \(String(describing: bad.goAway))")
        }

        // Without a topic: the single-topic certificate's UID is the default.
        let inSandbox = try await Self.sendWithCertificate(
            Acceptance.push(token: nil, topic: nil), to: mock.sandboxURL, trust: mock.trustRootsPath, identity: sandboxOnly,
            expectGoAway: false)
        #expect(inSandbox.response.status == 200)
        let inProduction = try await Self.sendWithCertificate(
            push, to: mock.productionURL, trust: mock.trustRootsPath, identity: sandboxOnly, expectGoAway: true)
        Self.expectAnswer(
            inProduction.response, status: 403, reason: .badCertificateEnvironment, environment: .production, label: "sandbox-only on production")
        #expect(inProduction.goAway.map { $0.debugText == #"{"reason":"BadCertificateEnvironment"}"# } == true,
                "\(inProduction.state) \(String(describing: inProduction.goAway))")
    }

    @Test func theBundledClientCertificateSendsVoIPAndComplicationPushesAndAUIDOnlyOneDoesNot() async throws {
        let directory = try TestCertificates.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let issued = try await onThread {
            try TestCertificates.issue(
                "uid-only", subject: "/UID=\(Acceptance.topic)/CN=Apple Push Services: \(Acceptance.topic)/OU=\(Acceptance.teamID)",
                extensions: ["\(AppleCertificateOID.developmentEnvironment)=ASN1:NULL", "\(AppleCertificateOID.productionEnvironment)=ASN1:NULL"],
                in: directory)
        }
        let bundled = (certificate: "\(Acceptance.certs)/client.pem", key: "\(Acceptance.certs)/client.key")
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Acceptance.certs) {
            $0.server.clientCAPath = "\(Acceptance.certs)/ca.pem"
        }
        defer { mock.stop() }
        let voip = Acceptance.push(token: nil, topic: "\(Acceptance.topic).voip", body: "{}", pushType: "voip")
        let complication = Acceptance.push(token: nil, topic: "\(Acceptance.topic).complication", pushType: "complication")

        for (environment, url) in [(APNsEnvironment.sandbox, mock.sandboxURL), (.production, mock.productionURL)] {
            for push in [voip, complication] {
                let sent = try await Self.sendWithCertificate(push, to: url, trust: mock.trustRootsPath, identity: bundled, expectGoAway: false)
                #expect(sent.response.status == 200, "\(push.headers["apns-topic"] ?? "") on \(environment)")
            }
            // The certificate covers three topics, so a push must name one.
            let untopical = try await Self.sendWithCertificate(
                Acceptance.push(token: nil, topic: nil), to: url, trust: mock.trustRootsPath, identity: bundled, expectGoAway: false)
            Self.expectAnswer(untopical.response, status: 400, reason: .missingTopic, environment: environment, label: "no topic on \(environment)")

            // A certificate without Apple's topics extension covers its UID alone.
            let uidOnly = try await Self.sendWithCertificate(voip, to: url, trust: mock.trustRootsPath, identity: issued, expectGoAway: false)
            Self.expectAnswer(uidOnly.response, status: 400, reason: .topicDisallowed, environment: environment, label: "UID-only on \(environment)")
        }
        let voipRecords = mock.capture.records().filter { $0.headers["apns-push-type"] == "voip" }
        #expect(voipRecords.map(\.outcome.status) == [200, 400, 200, 400])
    }
}
