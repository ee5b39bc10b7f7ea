import APNsCore
import Foundation
import HTTPTransport
import JWTVerify
import MockAPNs
import Synchronization
import Testing

/// Pushes decided by handlers of the embedder's own: the answer on the wire and the capture
/// are theirs, and a factory gets one call per connection with what the connection knows.
@Suite(.timeLimit(.minutes(3)))
struct PushHandlerTests {
    static let listedDevice = String(repeating: "ab", count: 32)
    static let otherDevice = String(repeating: "cd", count: 32)

    static func token(_ hex: String) throws -> DeviceToken {
        try #require(DeviceToken(hex))
    }

    /// The capture of the one push sent to `device`, once it is there.
    static func captured(_ device: String, count: Int = 1, in mock: MockAPNsServer) async throws -> [CaptureRecord] {
        let filter = CaptureFilter(deviceToken: try token(device))
        let result = await mock.capture.wait(for: filter, count: count, timeout: .seconds(20))
        #expect(result.isSatisfied)
        return mock.capture.records(matching: filter)
    }

    // MARK: Through a running mock

    @Test func aWrappingHandlerRejectsDevicesNotListedAndTheCaptureRecordsItsAnswer() async throws {
        let devices: Set<DeviceToken> = [try Self.token(Self.listedDevice)]
        let mock = try MockAPNsServer.startForTesting(
            certsDirectory: MockAPNsServerTests.certs, handlerFactory: { OnlyListedDevices(validating: $0, devices: devices) })
        defer { mock.stop() }
        let client = try MockAPNsServerTests.client(for: mock.sandboxURL, trust: mock.trustRootsPath)
        let token = try MockAPNsServerTests.providerToken()

        let listed = try await client.send(MockAPNsServerTests.push(token: token, device: Self.listedDevice))
        let other = try await client.send(MockAPNsServerTests.push(token: token, device: Self.otherDevice))
        let unauthenticated = try await client.send(MockAPNsServerTests.push(token: nil, device: Self.otherDevice))
        await client.close()

        #expect(listed.status == 200)
        #expect(other.status == 400 && String(decoding: other.body, as: UTF8.self) == #"{"reason":"BadDeviceToken"}"#)
        #expect(unauthenticated.status == 403, "what the built-in handler rejects stays rejected: \(unauthenticated.status)")
        let listedRecord = try #require(try await Self.captured(Self.listedDevice, in: mock).first)
        #expect(listedRecord.outcome.status == 200 && listedRecord.outcome.reason == nil)
        let otherRecords = try await Self.captured(Self.otherDevice, count: 2, in: mock)
        #expect(otherRecords.map(\.outcome.status) == [400, 403])
        #expect(otherRecords.map(\.outcome.reason) == [.badDeviceToken, .missingProviderToken])
        #expect(otherRecords.first?.keyID == MockConfiguration.defaultKeyIDs[0], "the built-in handler's details are kept")
    }

    @Test func aHandlerOfItsOwnDecidesTheReasonTimestampGoAwayAndLints() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: MockAPNsServerTests.certs, handlerFactory: { _ in EveryDeviceGone() })
        defer { mock.stop() }
        let client = try MockAPNsServerTests.client(for: mock.productionURL, trust: mock.trustRootsPath)

        let gone = try await client.send(MockAPNsServerTests.push(token: nil, device: Self.listedDevice))
        await client.close()

        #expect(gone.status == 410)
        #expect(String(decoding: gone.body, as: UTF8.self) == #"{"reason":"Unregistered","timestamp":\#(EveryDeviceGone.since)}"#)
        let record = try #require(try await Self.captured(Self.listedDevice, in: mock).first)
        #expect(record.outcome.status == 410 && record.outcome.reason == .unregistered)
        #expect(record.outcome.timestamp == EveryDeviceGone.since)
        #expect(record.outcome.connectionAction == .goAway, "a fatal decision is followed by GOAWAY")
        #expect(record.lintWarnings.map(\.code) == [EveryDeviceGone.lintCode])
        #expect(record.topic == "com.example.app")
        #expect(mock.metrics.rejectedPushes(.unregistered) == 1)
    }

    @Test func theFactoryIsCalledOncePerConnectionWithItsEnvironmentAndTheHandlerKeepsItsState() async throws {
        let recorder = ConnectionRecorder()
        let mock = try MockAPNsServer.startForTesting(
            certsDirectory: MockAPNsServerTests.certs, handlerFactory: { recorder.recording($0) })
        defer { mock.stop() }
        let token = try MockAPNsServerTests.providerToken()
        let sandbox = try MockAPNsServerTests.client(for: mock.sandboxURL, trust: mock.trustRootsPath)
        for _ in 0..<3 {
            #expect(try await sandbox.send(MockAPNsServerTests.push(token: token, device: Self.listedDevice)).status == 200)
        }
        await sandbox.close()
        let production = try MockAPNsServerTests.client(for: mock.productionURL, trust: mock.trustRootsPath)
        #expect(try await production.send(MockAPNsServerTests.push(token: token, device: Self.otherDevice)).status == 200)
        await production.close()

        let opened = recorder.opened
        #expect(opened.map(\.environment) == [.sandbox, .production])
        #expect(opened.allSatisfy { $0.certificate == nil && $0.peerCertificate == nil }, "token connections")
        let sandboxRecords = try await Self.captured(Self.listedDevice, count: 3, in: mock)
        #expect(sandboxRecords.map(\.connectionID) == Array(repeating: opened[0].id, count: 3))
        #expect(sandboxRecords.map { $0.lintWarnings.last?.message } == ["push 1", "push 2", "push 3"])
        #expect(sandboxRecords.allSatisfy { $0.environment == .sandbox })
        let productionRecord = try #require(try await Self.captured(Self.otherDevice, in: mock).first)
        #expect(productionRecord.connectionID == opened[1].id && productionRecord.lintWarnings.last?.message == "push 1")
    }

    @Test func aWrappedBuiltInHandlerSeesARegistryReplacedWhileItsConnectionIsOpen() async throws {
        let devices: Set<DeviceToken> = [try Self.token(Self.listedDevice)]
        let mock = try MockAPNsServer.startForTesting(
            certsDirectory: MockAPNsServerTests.certs, handlerFactory: { OnlyListedDevices(validating: $0, devices: devices) })
        defer { mock.stop() }
        let client = try MockAPNsServerTests.client(for: mock.sandboxURL, trust: mock.trustRootsPath)
        let token = try MockAPNsServerTests.providerToken()
        let before = try await client.send(MockAPNsServerTests.push(token: token, device: Self.listedDevice))

        var registry = mock.registry
        registry.bundleIDs = []
        mock.replaceRegistry(registry)
        let after = try await client.send(MockAPNsServerTests.push(token: token, device: Self.listedDevice))
        await client.close()

        #expect(before.status == 200)
        #expect(after.status == 400 && String(decoding: after.body, as: UTF8.self) == #"{"reason":"TopicDisallowed"}"#)
    }

    // MARK: The built-in handler, without a server

    @Test func theBuiltInHandlerKeepsItsConnectionsAuthenticationAndSaysWhenItIsAuthenticated() throws {
        let factory = ValidatingPushHandlerFactory(registry: try ValidationFixtures.registry(), now: TestClock().read)
        let handler = factory.makeHandler(for: PushConnectionInfo(id: 7, environment: .sandbox, certificate: nil))

        let missing = handler.handle(ValidationFixtures.request(token: nil))
        #expect(missing.reason == .missingProviderToken && !missing.connectionAuthenticated)
        let token = try ValidationFixtures.providerToken()
        let accepted = handler.handle(ValidationFixtures.request(token: token))
        #expect(accepted.isAccepted && accepted.connectionAuthenticated)
        #expect(handler.auth.hasSeenValidToken && handler.auth.environment == .sandbox)
        // Once authenticated, a later rejection leaves the connection authenticated.
        let empty = handler.handle(ValidationFixtures.request(token: token, payload: ""))
        #expect(empty.reason == .payloadEmpty && empty.connectionAuthenticated)

        let another = factory.makeHandler(for: PushConnectionInfo(id: 8, environment: .sandbox, certificate: nil))
        #expect(!another.auth.hasSeenValidToken, "each connection starts unauthenticated")
    }

    @Test func aCertificateConnectionsHandlerIsAuthenticatedFromItsFirstPush() throws {
        let factory = ValidatingPushHandlerFactory(registry: try ValidationFixtures.registry(), now: TestClock().read)
        let handler = factory.makeHandler(
            for: PushConnectionInfo(id: 1, environment: .sandbox, certificate: ValidationFixtures.certificateIdentity))

        let rejected = handler.handle(ValidationFixtures.certificateRequest(payload: ""))
        #expect(rejected.reason == .payloadEmpty && rejected.connectionAuthenticated)
        #expect(handler.handle(ValidationFixtures.certificateRequest()).isAccepted)
        #expect(handler.auth.certificate == ValidationFixtures.certificateIdentity)
    }

    @Test func aReplacedRegistryReachesAHandlerAlreadyMade() throws {
        let factory = ValidatingPushHandlerFactory(registry: try ValidationFixtures.registry(), now: TestClock().read)
        let handler = factory.makeHandler(for: PushConnectionInfo(id: 1, environment: .sandbox, certificate: nil))
        let request = ValidationFixtures.request(token: try ValidationFixtures.providerToken())
        #expect(handler.handle(request).isAccepted)

        factory.updateRegistry { $0.devices = [:] }
        #expect(handler.handle(request).reason == .badDeviceToken)
        #expect(factory.registry.devices.isEmpty)
    }

    @Test func aDecisionMadeFromScratchAuthenticatesTheConnectionUnlessItSaysOtherwise() {
        #expect(PushDecision(details: PushDetails(), verdict: .accepted).connectionAuthenticated)
        let rejected = PushDecision(
            details: PushDetails(), verdict: .rejected(reason: .badDeviceToken, timestamp: nil, isFatal: false),
            connectionAuthenticated: false)
        #expect(!rejected.connectionAuthenticated && rejected.status == 400)
    }
}

/// Accepts only the listed devices; every other answer is the built-in handler's. The
/// README's example, as it is there.
private struct OnlyListedDevices: PushHandlerFactory {
    let validating: ValidatingPushHandlerFactory
    let devices: Set<DeviceToken>

    func makeHandler(for connection: PushConnectionInfo) -> Handler {
        Handler(validating: validating.makeHandler(for: connection), devices: devices)
    }

    struct Handler: PushHandler {
        let validating: ValidatingPushHandler
        let devices: Set<DeviceToken>

        func handle(_ push: PushRequest) -> PushDecision {
            var decision = validating.handle(push)
            if decision.isAccepted, let token = decision.details.deviceToken, !devices.contains(token) {
                decision.verdict = .rejected(reason: .badDeviceToken, timestamp: nil, isFatal: false)
            }
            return decision
        }
    }
}

/// Answers every push 410 `Unregistered`, fatally, without looking at its credentials.
private struct EveryDeviceGone: PushHandlerFactory {
    static let since: Int64 = 1_700_000_000_123
    static let lintCode = "test.decided-by-handler"

    func makeHandler(for connection: PushConnectionInfo) -> Handler { Handler() }

    struct Handler: PushHandler {
        func handle(_ push: PushRequest) -> PushDecision {
            var details = PushDetails()
            details.deviceToken = DeviceToken(String(push.path.dropFirst("/3/device/".count)))
            details.topic = push.headers[APNsHeaderName.topic]
            details.lintWarnings.append(PushLintWarning(code: EveryDeviceGone.lintCode, message: "the test's handler decided"))
            return PushDecision(details: details, verdict: .rejected(reason: .unregistered, timestamp: EveryDeviceGone.since, isFatal: true))
        }
    }
}

/// Remembers every connection its factories were asked for, in order.
private final class ConnectionRecorder: Sendable {
    private let connections = Mutex<[PushConnectionInfo]>([])

    var opened: [PushConnectionInfo] { connections.withLock { $0 } }

    func recording(_ validating: ValidatingPushHandlerFactory) -> Factory {
        Factory(validating: validating, recorder: self)
    }

    func record(_ connection: PushConnectionInfo) {
        connections.withLock { $0.append(connection) }
    }

    /// The built-in handler, with a lint that numbers the pushes of each connection.
    struct Factory: PushHandlerFactory {
        let validating: ValidatingPushHandlerFactory
        let recorder: ConnectionRecorder

        func makeHandler(for connection: PushConnectionInfo) -> Counting {
            recorder.record(connection)
            return Counting(validating: validating.makeHandler(for: connection))
        }
    }

    struct Counting: PushHandler {
        let validating: ValidatingPushHandler
        var pushes = 0

        mutating func handle(_ push: PushRequest) -> PushDecision {
            pushes += 1
            var decision = validating.handle(push)
            decision.details.lintWarnings.append(PushLintWarning(code: "test.count", message: "push \(pushes)"))
            return decision
        }
    }
}
