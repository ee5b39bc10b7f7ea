import APNsClient
import APNsCore
import Foundation
import JWTVerify
import MockAPNs
import Testing

/// Every reason the mock can answer with surfaces as `APNsClientError.rejected` carrying
/// status, reason, apns-id and (for 410) the timestamp, through real requests.
@Suite(.timeLimit(.minutes(3)))
struct APNsClientReasonTests {
    static let unregisteredMilliseconds: Int64 = 1_700_000_000_123
    static let otherApp = "com.other.app"

    /// A 64-hex device token per environment: `a1a1…` in sandbox, `a2a2…` in production.
    static func device(_ hex: Character, _ environment: APNsEnvironment) -> String {
        String(repeating: "\(hex)\(environment == .sandbox ? 1 : 2)", count: 32)
    }

    /// Devices in each state, environment-scoped keys and fault rules per device, as the mock's own reason tests use.
    static func configure(_ configuration: inout MockConfiguration) {
        if let otherKey = configuration.registry.keys["XYZ987WXYZ"]?.publicKey {
            configuration.registry.keys["PRODONLY01"] = APNsRegisteredKey(
                publicKey: otherKey, teamID: ClientFixtures.teamID, environments: .production)
            configuration.registry.keys["SANDONLY01"] = APNsRegisteredKey(
                publicKey: otherKey, teamID: ClientFixtures.teamID, environments: .sandbox)
        }
        for environment in [APNsEnvironment.sandbox, .production] {
            let other: APNsEnvironment = environment == .sandbox ? .production : .sandbox
            let devices: [(Character, String, APNsEnvironment, DeviceState)] = [
                ("a", ClientFixtures.topic, environment,
                 .unregistered(since: Date(timeIntervalSince1970: Double(unregisteredMilliseconds) / 1000))),
                ("b", ClientFixtures.topic, environment, .expired),
                ("c", otherApp, environment, .active),
                ("d", ClientFixtures.topic, other, .active),
            ]
            for (hex, bundleID, registeredIn, state) in devices {
                guard let token = DeviceToken(device(hex, environment)) else { continue }
                configuration.registry.devices[token] = RegisteredDevice(
                    token: token, bundleID: bundleID, environment: registeredIn, state: state)
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

    /// One natural trigger: which client, which notification, and the answer expected.
    struct Case: Sendable, CustomStringConvertible {
        enum Credentials: Sendable { case standard, wrongSignature, keyOutside }
        var reason: APNsReason
        var status: Int
        var note = ""
        var credentials = Credentials.standard
        var notification: @Sendable (APNsEnvironment) -> APNsNotification

        var description: String { reason.wireValue + (note.isEmpty ? "" : " (\(note))") }
    }

    static let cases: [Case] = [
        Case(reason: .badDeviceToken, status: 400, note: "malformed") { _ in ClientFixtures.notification(device: "xyz") },
        Case(reason: .badDeviceToken, status: 400, note: "other environment") { ClientFixtures.notification(device: device("d", $0)) },
        Case(reason: .badCollapseId, status: 400) { _ in
            var notification = ClientFixtures.notification()
            notification.collapseID = String(repeating: "x", count: 65)
            return notification
        },
        Case(reason: .badExpirationDate, status: 400) { _ in
            var notification = ClientFixtures.notification()
            notification.expiration = APNsExpiration(unixSeconds: -5)
            return notification
        },
        Case(reason: .badTopic, status: 400) { _ in ClientFixtures.notification(topic: "bad topic") },
        Case(reason: .missingTopic, status: 400) { _ in ClientFixtures.notification(topic: nil) },
        Case(reason: .topicDisallowed, status: 400) { _ in ClientFixtures.notification(topic: otherApp) },
        Case(reason: .deviceTokenNotForTopic, status: 400) { ClientFixtures.notification(device: device("c", $0)) },
        Case(reason: .payloadEmpty, status: 400) { _ in ClientFixtures.notification(payload: []) },
        Case(reason: .payloadEmpty, status: 400, note: "not JSON") { _ in ClientFixtures.notification(payload: Array("{".utf8)) },
        Case(reason: .payloadTooLarge, status: 413) { _ in
            ClientFixtures.notification(payload: Array(#"{"aps":{"alert":"\#(String(repeating: "x", count: 4096))"}}"#.utf8))
        },
        Case(reason: .invalidProviderToken, status: 403, credentials: .wrongSignature) { _ in ClientFixtures.notification() },
        Case(reason: .badEnvironmentKeyIdInToken, status: 403, credentials: .keyOutside) { _ in ClientFixtures.notification() },
        Case(reason: .unregistered, status: 410) { ClientFixtures.notification(device: device("a", $0)) },
        Case(reason: .expiredToken, status: 410) { ClientFixtures.notification(device: device("b", $0)) },
        Case(reason: .forbidden, status: 403, note: "status fault") { ClientFixtures.notification(device: device("9", $0)) },
    ]

    /// A client whose token is signed as `credentials` says.
    static func client(
        for mock: MockAPNsServer, environment: APNsEnvironment, credentials: Case.Credentials,
        retryPolicy: APNsRetryPolicy = .none
    ) throws -> APNsClient {
        var configuration = try ClientFixtures.configuration(for: mock)
        switch credentials {
        case .standard:
            break
        case .wrongSignature:
            // The kid names ABC123DEFG, but the signature is XYZ987WXYZ's.
            configuration.authentication = .token(
                signingKey: try ClientFixtures.signingKey("XYZ987WXYZ"), keyID: ClientFixtures.keyID, teamID: ClientFixtures.teamID)
        case .keyOutside:
            configuration.authentication = .token(
                signingKey: try ClientFixtures.signingKey("XYZ987WXYZ"),
                keyID: environment == .sandbox ? "PRODONLY01" : "SANDONLY01", teamID: ClientFixtures.teamID)
        }
        configuration.retryPolicy = retryPolicy
        return try APNsClient(configuration: configuration)
    }

    @Test(arguments: ClientFixtures.SendPath.allCases)
    func everyNaturallyReachableReasonIsATypedRejectionOnBothEnvironments(path: ClientFixtures.SendPath) async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs, configure: Self.configure)
        defer { mock.stop() }
        for environment in [APNsEnvironment.sandbox, .production] {
            for testCase in Self.cases {
                let client = try Self.client(for: mock, environment: environment, credentials: testCase.credentials)
                let notification = testCase.notification(environment)
                let result = await ClientFixtures.outcome(client, notification, environment, via: path)
                await client.shutdown()
                let label = "\(testCase) on \(environment)"
                guard case let .failure(.rejected(rejection)) = result else {
                    Issue.record("\(label): expected a rejection, got \(result)")
                    continue
                }
                #expect(rejection.status == testCase.status, "\(label)")
                #expect(rejection.reason == testCase.reason, "\(label)")
                #expect(APNsIDGenerator.isCanonicalUUID(rejection.apnsID), "\(label)")
                #expect((rejection.uniqueID != nil) == (environment == .sandbox), "\(label)")
                #expect(rejection.meansDeviceIsGone == (testCase.status == 410), "\(label)")
                if testCase.reason == .unregistered {
                    #expect(rejection.timestampMilliseconds == Self.unregisteredMilliseconds, "\(label)")
                    #expect(rejection.timestamp == Date(timeIntervalSince1970: 1_700_000_000.123), "\(label)")
                } else {
                    #expect(rejection.timestampMilliseconds == nil, "\(label)")
                }
                let captured = mock.capture.records(matching: CaptureFilter(apnsID: rejection.apnsID))
                #expect(captured.count == 1, "\(label): final rejections are never retried")
                #expect(captured.first?.outcome.reason == testCase.reason, "\(label)")
            }
        }
    }

    /// Retryable answers reached naturally: the client retries them, then reports the last one.
    @Test(arguments: ClientFixtures.SendPath.allCases)
    func retryableReasonsSurfaceAfterTheRetriesAsRetriesExhausted(path: ClientFixtures.SendPath) async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs, configure: Self.configure)
        defer { mock.stop() }
        let expected: [(Character, APNsReason, Int)] = [
            ("f", .internalServerError, 500), ("7", .serviceUnavailable, 503), ("8", .shutdown, 503), ("e", .tooManyRequests, 429),
        ]
        let policy = APNsRetryPolicy(maximumAttempts: 2, initialBackoff: .milliseconds(5), maximumBackoff: .milliseconds(20), multiplier: 2)
        for environment in [APNsEnvironment.sandbox, .production] {
            let client = try Self.client(for: mock, environment: environment, credentials: .standard, retryPolicy: policy)
            for (hex, reason, status) in expected {
                var notification = ClientFixtures.notification(device: Self.device(hex, environment))
                if reason == .tooManyRequests {
                    // The rate limit lets one push through per window.
                    _ = try await ClientFixtures.send(client, notification, environment, via: path)
                }
                notification.apnsID = UUID().uuidString.lowercased()
                let result = await ClientFixtures.outcome(client, notification, environment, via: path)
                let label = "\(reason) on \(environment)"
                guard case let .failure(.retriesExhausted(attempts, last)) = result, case let .rejected(rejection) = last else {
                    Issue.record("\(label): expected retriesExhausted, got \(result)")
                    continue
                }
                #expect(attempts == 2, "\(label)")
                #expect(rejection.reason == reason && rejection.status == status, "\(label)")
                #expect(result.failureRejection == rejection, "\(label): `rejection` reaches through retriesExhausted")
                let captured = mock.capture.records(matching: CaptureFilter(apnsID: notification.apnsID))
                #expect(captured.count == 2, "\(label): two attempts with the same apns-id")
            }
            await client.shutdown()
        }
    }

    /// Every reason APNs documents, forced by a status fault, decodes to itself with its status:
    /// this covers the reasons a typed request cannot provoke (InvalidPushType, BadPriority,
    /// BadMessageId, MethodNotAllowed, BadPath, DuplicateHeaders, MissingDeviceToken, IdleTimeout,
    /// UnrelatedKeyIdInToken, TooManyProviderTokenUpdates, MissingProviderToken, the certificate reasons).
    @Test(arguments: ClientFixtures.SendPath.allCases)
    func everyDocumentedReasonForcedByAStatusFaultDecodesToItself(path: ClientFixtures.SendPath) async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs)
        defer { mock.stop() }
        let client = try Self.client(for: mock, environment: .sandbox, credentials: .standard)
        for reason in APNsReason.allKnown + [.unknown("SomethingNew")] {
            let status = reason.status ?? 400
            try mock.faults.replaceAll([FaultRule(id: "forced", action: .status(status, reason: reason))])
            let result = await ClientFixtures.outcome(client, ClientFixtures.notification(), via: path)
            switch result {
            case let .failure(.rejected(rejection)):
                #expect(rejection.reason == reason && rejection.status == status, "\(reason)")
                #expect(rejection.isRetryable == (status >= 500 || reason == .tooManyRequests), "\(reason)")
                // ExpiredProviderToken is sent once more with a fresh token, and
                // TooManyProviderTokenUpdates once more on another connection, whatever the policy.
                let attempts = [.expiredProviderToken, .tooManyProviderTokenUpdates].contains(reason) ? 2 : 1
                #expect(mock.capture.records(matching: CaptureFilter(apnsID: rejection.apnsID)).count == attempts,
                        "\(reason): \(attempts) attempt(s) under APNsRetryPolicy.none")
            case .failure(.retriesExhausted):
                Issue.record("\(reason): a policy of one attempt never reports retriesExhausted")
            default:
                Issue.record("\(reason): expected a rejection, got \(result)")
            }
        }
        await client.shutdown()
    }
}

extension Result where Failure == APNsClientError {
    var failureRejection: APNsRejection? {
        if case let .failure(error) = self { return error.rejection }
        return nil
    }
}
