@testable import APNsClient
import APNsCore
import Foundation
import HTTPTransport
import JWTVerify
import MockAPNs
import Testing

/// Retries only where Apple allows, bounded, and always with the push's own apns-id.
@Suite(.timeLimit(.minutes(2)))
struct APNsClientRetryTests {
    static let quickRetries = APNsRetryPolicy(
        maximumAttempts: 4, initialBackoff: .milliseconds(5), maximumBackoff: .milliseconds(40), multiplier: 2)

    static func client(for mock: MockAPNsServer, policy: APNsRetryPolicy = quickRetries) throws -> APNsClient {
        var configuration = try ClientFixtures.configuration(for: mock)
        configuration.retryPolicy = policy
        return try APNsClient(configuration: configuration)
    }

    static func attempts(_ mock: MockAPNsServer, _ apnsID: String) -> [CaptureRecord] {
        mock.capture.records(matching: CaptureFilter(apnsID: apnsID))
    }

    @Test(arguments: ClientFixtures.SendPath.allCases)
    func serverErrorsAndRateLimitsAreRetriedWithTheSameApnsIDUntilAccepted(path: ClientFixtures.SendPath) async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs)
        defer { mock.stop() }
        let client = try Self.client(for: mock)
        let actions: [FaultAction] = [
            .status(500, reason: .internalServerError), .unavailable(.serviceUnavailable), .unavailable(.shutdown),
            .status(429, reason: .tooManyRequests),
        ]
        for action in actions {
            try mock.faults.replaceAll([FaultRule(id: "twice", count: 2, action: action)])
            let apnsID = UUID().uuidString.lowercased()
            let response = try await ClientFixtures.send(client, ClientFixtures.notification(apnsID: apnsID), .sandbox, via: path)
            #expect(response.attempts == 3, "\(action)")
            #expect(response.apnsID == apnsID)
            let records = Self.attempts(mock, apnsID)
            #expect(records.map(\.outcome.status).last == 200, "\(action)")
            #expect(records.count == 3, "\(action): three attempts, each with the same apns-id")
        }
        await client.shutdown()
    }

    @Test(arguments: ClientFixtures.SendPath.allCases)
    func finalRejectionsAreNeverRetried(path: ClientFixtures.SendPath) async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs)
        defer { mock.stop() }
        let client = try Self.client(for: mock)
        let final: [APNsReason] = [
            .badDeviceToken, .unregistered, .expiredToken, .payloadTooLarge, .deviceTokenNotForTopic, .forbidden,
            .badTopic, .invalidProviderToken,
        ]
        // TooManyProviderTokenUpdates is about the connection: sent once more on another
        // (APNsClientTokenTests), then reported like these.
        for reason in final {
            try mock.faults.replaceAll([FaultRule(id: "final", action: .status(reason.status ?? 400, reason: reason))])
            let apnsID = UUID().uuidString.lowercased()
            let result = await ClientFixtures.outcome(client, ClientFixtures.notification(apnsID: apnsID), via: path)
            #expect(result.failureRejection?.reason == reason, "\(reason)")
            if case .failure(.retriesExhausted) = result { Issue.record("\(reason) was retried") }
            #expect(Self.attempts(mock, apnsID).count == 1, "\(reason) is sent once")
        }
        await client.shutdown()
    }

    @Test(arguments: ClientFixtures.SendPath.allCases)
    func retriesAreBoundedByThePolicy(path: ClientFixtures.SendPath) async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs)
        defer { mock.stop() }
        try mock.faults.add(FaultRule(id: "down", action: .unavailable(.serviceUnavailable)))
        for maximumAttempts in [1, 2, 5] {
            var policy = Self.quickRetries
            policy.maximumAttempts = maximumAttempts
            let client = try Self.client(for: mock, policy: policy)
            let apnsID = UUID().uuidString.lowercased()
            let result = await ClientFixtures.outcome(client, ClientFixtures.notification(apnsID: apnsID), via: path)
            await client.shutdown()
            #expect(Self.attempts(mock, apnsID).count == maximumAttempts)
            if maximumAttempts == 1 {
                #expect(result.failureRejection?.reason == .serviceUnavailable)
                if case .failure(.retriesExhausted) = result { Issue.record("one attempt is not a retry") }
            } else if case let .failure(.retriesExhausted(attempts, _)) = result {
                #expect(attempts == maximumAttempts)
            } else {
                Issue.record("expected retriesExhausted, got \(result)")
            }
        }
    }

    @Test(arguments: ClientFixtures.SendPath.allCases)
    func aConnectionLostBeforeTheAnswerIsRetriedOnANewConnectionWithTheSameApnsID(path: ClientFixtures.SendPath) async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs)
        defer { mock.stop() }
        let client = try Self.client(for: mock)
        _ = try await ClientFixtures.send(client, ClientFixtures.notification(), .sandbox, via: path)
        try mock.faults.add(FaultRule(id: "drop", count: 1, action: .closeConnection))
        let apnsID = UUID().uuidString.lowercased()
        let response = try await ClientFixtures.send(client, ClientFixtures.notification(apnsID: apnsID), .sandbox, via: path)
        #expect(response.attempts == 2)
        let records = Self.attempts(mock, apnsID)
        #expect(records.map(\.outcome.status) == [0, 200], "dropped unanswered, then accepted")
        #expect(records.count == 2 && records[0].connectionID != records[1].connectionID)
        #expect(client.connectionsOpened(to: .sandbox) == 2)
        await client.shutdown()
    }

    @Test(arguments: ClientFixtures.SendPath.allCases)
    func resetStreamsAndTimeoutsAreNotRetried(path: ClientFixtures.SendPath) async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs)
        defer { mock.stop() }
        var configuration = try ClientFixtures.configuration(for: mock)
        configuration.retryPolicy = Self.quickRetries
        // The timeout counts from the send, connecting included: 300 ms could run out in a loaded
        // machine's first TLS handshake. It only has to be far shorter than the delay below.
        configuration.requestTimeout = .seconds(2)
        let client = try APNsClient(configuration: configuration)
        _ = try await ClientFixtures.send(client, ClientFixtures.notification(), .sandbox, via: path)

        try mock.faults.replaceAll([FaultRule(id: "reset", count: 1, action: .resetStream(.internalError))])
        let resetID = UUID().uuidString.lowercased()
        let reset = await ClientFixtures.outcome(client, ClientFixtures.notification(apnsID: resetID), via: path)
        #expect(reset == .failure(.transport(.streamReset(errorCode: .internalError))))
        #expect(Self.attempts(mock, resetID).count == 1)

        try mock.faults.replaceAll([FaultRule(id: "slow", count: 1, action: .delay(.seconds(8)))])
        let slowID = UUID().uuidString.lowercased()
        let slow = await ClientFixtures.outcome(client, ClientFixtures.notification(apnsID: slowID), via: path)
        guard case .failure(.transport(.timedOut(.request, _))) = slow else {
            Issue.record("expected a request timeout, got \(slow)")
            return
        }
        #expect(await eventually { Self.attempts(mock, slowID).count == 1 })
        try await Task.sleep(for: .milliseconds(300))
        #expect(Self.attempts(mock, slowID).count == 1, "a timed-out push may have been delivered: not retried")
        await client.shutdown()
    }

    /// A server that refuses every stream (REFUSED_STREAM) sees one push within one small
    /// budget: the first send, two unprocessed resends (the first on another connection), then
    /// the policy's attempts. Were the transport's own resends layered under these, the two
    /// would multiply into dozens of sends.
    @Test(arguments: ClientFixtures.SendPath.allCases)
    func aRefusedPushIsResentWithinOneSmallBudgetThenOnlyAsThePolicyAllows(path: ClientFixtures.SendPath) async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs)
        defer { mock.stop() }
        try mock.faults.add(FaultRule(id: "refuse", count: 1000, action: .resetStream(.refusedStream)))
        for maximumAttempts in [1, 4] {
            var policy = Self.quickRetries
            policy.maximumAttempts = maximumAttempts
            let client = try Self.client(for: mock, policy: policy)
            let apnsID = UUID().uuidString.lowercased()
            let result = await ClientFixtures.outcome(client, ClientFixtures.notification(apnsID: apnsID), via: path)
            await client.shutdown()
            let refused = HTTPClientError.streamReset(errorCode: .refusedStream)
            if maximumAttempts == 1 {
                #expect(result == .failure(.transport(refused)))
            } else {
                #expect(result == .failure(.retriesExhausted(attempts: maximumAttempts, last: .transport(refused))))
            }
            let records = Self.attempts(mock, apnsID)
            #expect(records.count == 1 + APNsClient.maximumUnprocessedResends + (maximumAttempts - 1),
                    "\(maximumAttempts) attempts: sent \(records.count) times")
            #expect(records.allSatisfy { $0.outcome.status == 0 })
            #expect(records.count >= 2 && records[0].connectionID != records[1].connectionID,
                    "the first resend goes on another connection")
        }
    }

    /// A pool for `APNsSendAttempts` alone: its connections are made but never connect.
    static func idlePool() throws -> (APNsConnectionPool, EventLoopGroup) {
        let group = try EventLoopGroup(threads: 1)
        let pool = APNsConnectionPool(
            destination: try APNsDestination(url: "http://127.0.0.1:9"),
            endpoint: try HTTP2ClientEndpoint(configuration: HTTP2ClientConfiguration(host: "127.0.0.1", port: 9)), group: group,
            maximumConnections: 4, maximumStreams: 10, tokens: nil)
        return (pool, group)
    }

    @Test(arguments: [
        HTTPClientError.streamReset(errorCode: .refusedStream),
        .goAway(errorCode: .noError, debugData: Array(#"{"reason":"Shutdown"}"#.utf8), lastStreamID: 0),
        .goAway(errorCode: .noError, debugData: [], lastStreamID: 0),
    ])
    func onlyTheFirstUnprocessedResendIsImmediateAndLaterSendsWaitTheBackoff(failure: HTTPClientError) async throws {
        let (pool, group) = try Self.idlePool()
        let policy = APNsRetryPolicy(
            maximumAttempts: 3, initialBackoff: .seconds(10), maximumBackoff: .seconds(60), multiplier: 2)
        var attempts = try APNsSendAttempts(ClientFixtures.notification(), apnsID: UUID().uuidString.lowercased(), policy: policy)
        var waits: [Duration?] = []
        var final: APNsClientError?
        while final == nil && waits.count < 20 {
            let lease = try pool.lease(avoiding: attempts.avoidedConnection)
            _ = attempts.begin(token: lease.token)
            do {
                switch try attempts.end(.failure(failure), on: lease.connection, pool: pool, tokens: nil) {
                case .delivered: Issue.record("delivered without a server")
                case let .again(after: wait): waits.append(wait)
                }
            } catch {
                final = error
            }
        }
        await pool.shutdown()
        group.shutdown()
        // Sent 5 times: the first, 2 unprocessed resends, 2 retries.
        try #require(waits.count == 4, "\(waits)")
        #expect(waits[0] == nil, "the first resend goes at once")
        // The second resend waits the policy's first backoff; the retries wait as the policy says.
        for (index, full) in [(1, 10), (2, 10), (3, 20)] {
            let wait = try #require(waits[index], "send \(index + 2) waits")
            #expect(wait >= .seconds(full / 2) && wait <= .seconds(full), "send \(index + 2) waited \(wait)")
        }
        #expect(final == .retriesExhausted(attempts: 3, last: .transport(failure)))
    }

    @Test func aGOAWAYReasonIsFatalWhenAPNsSaysNotToRetryIt() {
        func reason(_ text: String) -> APNsReason? {
            APNsSendAttempts.fatalReason(inGoAwayDebugData: Array(text.utf8))
        }
        for fatal in [APNsReason.badCertificate, .badCertificateEnvironment, .forbidden, .invalidProviderToken,
                      .missingProviderToken, .badEnvironmentKeyIdInToken, .expiredProviderToken, .topicDisallowed] {
            #expect(reason(#"{"reason":"\#(fatal.wireValue)"}"#) == fatal)
        }
        for harmless in [#"{"reason":"Shutdown"}"#, #"{"reason":"ServiceUnavailable"}"#, #"{"reason":"IdleTimeout"}"#,
                         #"{"reason":"SomethingNew"}"#, "Maximum active streams violated for this endpoint", "", "{}"] {
            #expect(reason(harmless) == nil, "\(harmless)")
        }
    }

    @Test func backoffGrowsExponentiallyWithinItsJitterAndIsCapped() {
        let policy = APNsRetryPolicy(maximumAttempts: 10, initialBackoff: .milliseconds(100), maximumBackoff: .seconds(1), multiplier: 2)
        var generator = SystemRandomNumberGenerator()
        for (attempt, full) in [(1, 100), (2, 200), (3, 400), (4, 800), (5, 1000), (9, 1000)] {
            for _ in 0..<50 {
                let wait = policy.backoff(afterAttempt: attempt, using: &generator)
                #expect(wait >= .milliseconds(full / 2) && wait <= .milliseconds(full), "attempt \(attempt): \(wait)")
            }
        }
        #expect(APNsRetryPolicy.none.backoff(afterAttempt: 1, using: &generator) == .zero)
    }

    /// A cap too long for nanoseconds is a valid policy: its waits saturate at the cap instead
    /// of trapping, and the retry timer's deadline at "never" instead of wrapping into the past.
    @Test func backoffsTooLongForNanosecondsSaturate() throws {
        let policy = APNsRetryPolicy(
            maximumAttempts: 3, initialBackoff: .seconds(Int64.max / 2), maximumBackoff: .seconds(Int64.max), multiplier: 2)
        try policy.validate()
        var generator = SystemRandomNumberGenerator()
        #expect(policy.backoff(afterAttempt: 2, using: &generator) == .seconds(Int64.max))
        #expect(APNsClient.deadline(after: .seconds(Int64.max)) == .distantFuture)
        #expect(APNsClient.deadline(after: .seconds(9_300_000_000)) == .distantFuture)
        // 50 ms from a moment between the two readings, however long a loaded machine
        // stalls between them.
        let before = DispatchTime.now().uptimeNanoseconds
        let soon = APNsClient.deadline(after: .milliseconds(50)).uptimeNanoseconds
        let after = DispatchTime.now().uptimeNanoseconds
        #expect(soon >= before + 50_000_000 && soon <= after + 50_000_000)
    }
}
