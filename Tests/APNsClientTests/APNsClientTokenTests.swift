import APNsClient
import APNsCore
import Foundation
import MockAPNs
import JWTVerify
import StrictJSON
import Testing

/// Provider tokens over simulated hours: the mock and the client share an injected clock.
@Suite(.timeLimit(.minutes(2)))
struct APNsClientTokenTests {
    /// The `iat` and fingerprint of the token each push with `apnsID` carried, in capture order.
    static func tokens(_ mock: MockAPNsServer, apnsID: String) -> [(iat: Int64?, fingerprint: String?, status: Int)] {
        mock.capture.records(matching: CaptureFilter(apnsID: apnsID)).map { record in
            var iat: Int64?
            if case let .object(claims)? = record.token?.claims, case let .integer(value)? = claims["iat"] { iat = value }
            return (iat, record.token?.fingerprint, record.outcome.status)
        }
    }

    @Test(arguments: ClientFixtures.SendPath.allCases)
    func oneTokenIsReusedUntilTheIntervalThenRefreshedAndTheMockAcceptsItForHours(path: ClientFixtures.SendPath) async throws {
        let clock = ManualClock()
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs, now: clock.reader)
        defer { mock.stop() }
        var configuration = try ClientFixtures.configuration(for: mock)
        configuration.tokenRefreshInterval = .seconds(30 * 60)
        configuration.retryPolicy = .none
        let client = try APNsClient(configuration: configuration, now: clock.reader)
        let start = Int64(clock.now.timeIntervalSince1970)

        var seen: [(minute: Int, iat: Int64?, fingerprint: String?)] = []
        // Every 10 simulated minutes for 5 hours, on one connection per environment.
        for step in 0...30 {
            for environment in [APNsEnvironment.sandbox, .production] {
                let response = try await ClientFixtures.send(client, ClientFixtures.notification(), environment, via: path)
                let captured = Self.tokens(mock, apnsID: response.apnsID)
                #expect(captured.map(\.status) == [200], "minute \(step * 10) on \(environment)")
                if let first = captured.first { seen.append((step * 10, first.iat, first.fingerprint)) }
            }
            clock.advance(by: 600)
        }
        // A new token every 30 minutes: at minutes 0, 30, 60, …, 300 (11 tokens), each dated when it was signed.
        #expect(client.providerTokensSigned == 11)
        for entry in seen {
            let expectedIat = start + Int64(entry.minute / 30 * 30 * 60)
            #expect(entry.iat == expectedIat, "minute \(entry.minute)")
        }
        #expect(Set(seen.compactMap(\.fingerprint)).count == 11)
        #expect(client.connectionsOpened(to: .sandbox) == 1, "a refresh needs no new connection")
        await client.shutdown()
    }

    @Test(arguments: ClientFixtures.SendPath.allCases)
    func expiredProviderTokenIsReplacedAtOnceAndThePushSentOnceMoreOnANewConnection(path: ClientFixtures.SendPath) async throws {
        let mockClock = ManualClock()
        let clientClock = ManualClock(mockClock.now)
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs, now: mockClock.reader)
        defer { mock.stop() }
        var configuration = try ClientFixtures.configuration(for: mock)
        configuration.retryPolicy = .none
        let client = try APNsClient(configuration: configuration, now: clientClock.reader)
        _ = try await ClientFixtures.send(client, ClientFixtures.notification(), .sandbox, via: path)

        // APNs' clock runs 61 minutes ahead of the client's 10: the reused token is over an hour old to it.
        mockClock.advance(by: 61 * 60)
        clientClock.advance(by: 10 * 60)
        let response = try await ClientFixtures.send(client, ClientFixtures.notification(), .sandbox, via: path)
        #expect(response.attempts == 1, "the resend after a refresh is not a retry")
        let records = mock.capture.records(matching: CaptureFilter(apnsID: response.apnsID))
        #expect(records.map(\.outcome.status) == [403, 200])
        #expect(records.first?.outcome.reason == .expiredProviderToken)
        #expect(records.count == 2 && records[0].token?.fingerprint != records[1].token?.fingerprint)
        #expect(records.count == 2 && records[0].connectionID != records[1].connectionID,
                "the connection that saw an expired token is left, as pushy does")
        #expect(client.providerTokensSigned == 2)

        // A server that keeps calling every token expired gets one fresh token, not a loop.
        mockClock.advance(by: 3 * 3600)
        let result = await ClientFixtures.outcome(client, ClientFixtures.notification(), via: path)
        guard case let .failure(.rejected(rejection)) = result else {
            Issue.record("expected ExpiredProviderToken, got \(result)")
            return
        }
        #expect(rejection.reason == .expiredProviderToken)
        #expect(mock.capture.records(matching: CaptureFilter(apnsID: rejection.apnsID)).count == 2)
        #expect(client.providerTokensSigned == 3)
        await client.shutdown()
    }

    @Test func refreshIntervalsOutsideApplesWindowAreRefused() throws {
        var configuration = APNsClientConfiguration(
            authentication: .token(signingKey: try ClientFixtures.signingKey(), keyID: ClientFixtures.keyID, teamID: ClientFixtures.teamID))
        for minutes in [0, 19, 61, 600] {
            configuration.tokenRefreshInterval = .seconds(minutes * 60)
            #expect(throws: APNsClientError.self) { try APNsClient(configuration: configuration) }
        }
        configuration.tokenRefreshInterval = .seconds(20 * 60)
        #expect(throws: Never.self) { try configuration.validate() }
    }
}
