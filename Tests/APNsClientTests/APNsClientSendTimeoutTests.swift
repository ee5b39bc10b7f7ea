@testable import APNsClient
import APNsCore
import Foundation
import HTTPTransport
import MockAPNs
import Testing

/// `sendTimeout` bounds a whole push, retries and backoffs included, on both send paths.
@Suite(.timeLimit(.minutes(1)))
struct APNsClientSendTimeoutTests {
    static func client(for mock: MockAPNsServer, sendTimeout: Duration, policy: APNsRetryPolicy) throws -> APNsClient {
        var configuration = try ClientFixtures.configuration(for: mock)
        configuration.sendTimeout = sendTimeout
        configuration.retryPolicy = policy
        return try APNsClient(configuration: configuration)
    }

    @Test(arguments: ClientFixtures.SendPath.allCases)
    func anAttemptStillWaitingWhenTheTimeRunsOutIsCutShort(path: ClientFixtures.SendPath) async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs)
        defer { mock.stop() }
        // A connection first, so the bound is measured against a slow answer, not a handshake.
        // The bound covers that first push too, handshake included, on a loaded machine.
        let client = try Self.client(for: mock, sendTimeout: .seconds(5), policy: .default)
        _ = try await ClientFixtures.send(client, ClientFixtures.notification(), via: path)
        try mock.faults.replaceAll([FaultRule(id: "slow", action: .delay(.seconds(300)))])

        let started = ContinuousClock.now
        let outcome = await ClientFixtures.outcome(client, ClientFixtures.notification(), via: path)
        let took = started.duration(to: .now)
        await client.shutdown()
        #expect(outcome == .failure(.sendTimedOut(after: .seconds(5), attempts: 1, last: nil)), "\(outcome)")
        // Generous above: a loaded machine runs timers late, but nowhere near the 300 s delay.
        #expect(took >= .milliseconds(4980) && took < .seconds(40), "answered after \(took), not after the 300 s delay")
    }

    @Test(arguments: ClientFixtures.SendPath.allCases)
    func aRetryWhoseBackoffWouldEndTooLateIsNotWaitedFor(path: ClientFixtures.SendPath) async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs)
        defer { mock.stop() }
        // After the first 503 a 100-200 ms wait, after the second 100-200 s: past the 30 s
        // bound, which leaves a loaded machine room for a handshake and two attempts.
        let policy = APNsRetryPolicy(maximumAttempts: 5, initialBackoff: .milliseconds(200), maximumBackoff: .seconds(600), multiplier: 1000)
        let client = try Self.client(for: mock, sendTimeout: .seconds(30), policy: policy)
        // A connection first, so both attempts fit in the bound however slow a handshake is.
        _ = try await ClientFixtures.send(client, ClientFixtures.notification(), via: path)
        try mock.faults.replaceAll([FaultRule(id: "down", action: .unavailable(.serviceUnavailable))])
        let apnsID = UUID().uuidString.lowercased()

        let started = ContinuousClock.now
        let outcome = await ClientFixtures.outcome(client, ClientFixtures.notification(apnsID: apnsID), via: path)
        let took = started.duration(to: .now)
        await client.shutdown()
        guard case let .failure(.sendTimedOut(after, attempts, last)) = outcome else {
            Issue.record("expected sendTimedOut, got \(outcome)")
            return
        }
        #expect(after == .seconds(30) && attempts == 2)
        #expect(last?.rejection?.status == 503 && last?.rejection?.reason == .serviceUnavailable)
        #expect((try? outcome.get()) == nil && outcome.failureRejection?.status == 503, "the rejection behind it is still reachable")
        #expect(took < .seconds(30), "gave up at once instead of waiting past the bound: \(took)")
        #expect(mock.capture.records(matching: CaptureFilter(apnsID: apnsID)).count == 2)
    }

    @Test(arguments: ClientFixtures.SendPath.allCases)
    func aPushThatEndsInTimeIsRetriedAsUsual(path: ClientFixtures.SendPath) async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs)
        defer { mock.stop() }
        // Room for a handshake and two attempts on a loaded machine.
        let client = try Self.client(for: mock, sendTimeout: .seconds(30), policy: APNsClientRetryTests.quickRetries)
        try mock.faults.replaceAll([FaultRule(id: "blip", count: 1, action: .status(500, reason: .internalServerError))])
        let response = try await ClientFixtures.send(client, ClientFixtures.notification(), via: path)
        await client.shutdown()
        #expect(response.status == 200 && response.attempts == 2)
    }

    @Test func eachAttemptGetsWhatIsLeftWhenThatIsShorterThanItsOwnTimeout() throws {
        func timeout(request: Duration, send: Duration?) throws -> Duration? {
            var attempts = try APNsSendAttempts(
                ClientFixtures.notification(), apnsID: UUID().uuidString.lowercased(), policy: .default,
                requestTimeout: request, sendTimeout: send)
            return attempts.begin(token: nil).timeout
        }
        #expect(try timeout(request: .seconds(30), send: nil) == nil, "no bound: the connection's timeout")
        // Built and begun back to back, the first attempt has all the time there is, unless a
        // loaded machine stalls between the two for longer than the tolerance: one try of
        // several shows it.
        #expect(try (0..<20).contains { _ in try timeout(request: .seconds(4), send: .seconds(4)) == nil },
                "the whole time left: the connection's shared timer, ending at most the tolerance late")
        let cut = try #require(try timeout(request: .seconds(30), send: .seconds(4)))
        #expect(cut <= .seconds(4) && cut > .seconds(3))
    }

    @Test func aSendTimeoutMustBePositive() throws {
        var configuration = APNsClientConfiguration(authentication: .token(
            signingKey: try ClientFixtures.signingKey(), keyID: ClientFixtures.keyID, teamID: ClientFixtures.teamID))
        configuration.sendTimeout = .zero
        #expect(throws: APNsClientError.self) { try configuration.validate() }
        configuration.sendTimeout = .milliseconds(1)
        try configuration.validate()
    }
}

extension Result<APNsResponse, APNsClientError> {
    /// The APNs answer behind a failure, as `APNsClientError.rejection` finds it.
    fileprivate var failureRejection: APNsRejection? {
        if case let .failure(error) = self { return error.rejection }
        return nil
    }
}
