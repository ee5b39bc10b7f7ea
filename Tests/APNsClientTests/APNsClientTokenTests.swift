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

    /// Sends `notifications` at once, each from its own task, and returns every outcome.
    static func sendAll(
        _ client: APNsClient, _ notifications: [APNsNotification], via path: ClientFixtures.SendPath
    ) async -> [Result<APNsResponse, APNsClientError>] {
        await withTaskGroup(of: Result<APNsResponse, APNsClientError>.self) { group in
            for notification in notifications {
                group.addTask { await ClientFixtures.outcome(client, notification, .sandbox, via: path) }
            }
            var outcomes: [Result<APNsResponse, APNsClientError>] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
    }

    /// Every push the mock answered `TooManyProviderTokenUpdates`.
    static func tooSoonTokenChanges(_ mock: MockAPNsServer) -> [CaptureRecord] {
        mock.capture.records().filter { $0.outcome.reason == .tooManyProviderTokenUpdates }
    }

    /// Two pushes at once on a client allowed one stream per connection: while the first waits
    /// for its delayed answer, the second needs a connection of its own.
    static func openTwoConnections(_ client: APNsClient, _ mock: MockAPNsServer, via path: ClientFixtures.SendPath) async throws {
        // Long enough for the second task to start on a loaded machine.
        try mock.faults.add(FaultRule(id: "slow", count: 2, action: .delay(.seconds(1))))
        let outcomes = await sendAll(client, [ClientFixtures.notification(), ClientFixtures.notification()], via: path)
        #expect(outcomes.allSatisfy { (try? $0.get()) != nil }, "\(outcomes)")
        mock.faults.removeAll()
    }

    /// The audit's case: two pooled connections, one `ExpiredProviderToken`. The fresh token
    /// must not go on the other connection, which took the old one moments ago (APNs allows a
    /// connection one token change per 20 minutes).
    @Test(arguments: ClientFixtures.SendPath.allCases)
    func afterExpiredProviderTokenNoOtherConnectionChangesTokensTooSoon(path: ClientFixtures.SendPath) async throws {
        let clock = ManualClock()
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs, now: clock.reader)
        defer { mock.stop() }
        var configuration = try ClientFixtures.configuration(for: mock)
        // Two connections, as the gateway keeps one per event loop: one push per connection
        // makes two pushes at once open the second.
        configuration.maximumStreamsPerConnection = 1
        configuration.maximumConnectionsPerEnvironment = 2
        configuration.retryPolicy = .none
        let client = try APNsClient(configuration: configuration, now: clock.reader)
        try await Self.openTwoConnections(client, mock, via: path)
        try #require(client.connectionsOpened(to: .sandbox) == 2)

        let device = String(repeating: "cd", count: 32)
        try mock.faults.add(FaultRule(
            id: "ept-once", match: FaultMatch(deviceToken: DeviceToken(device)), count: 1,
            action: .status(403, reason: .expiredProviderToken)))
        let refreshed = try await ClientFixtures.send(client, ClientFixtures.notification(device: device), .sandbox, via: path)
        #expect(Self.tokens(mock, apnsID: refreshed.apnsID).map(\.status) == [403, 200])
        #expect(client.providerTokensSigned == 2)

        // One at a time (each would take the pool's first connection) and in a burst (all of them).
        var outcomes: [Result<APNsResponse, APNsClientError>] = []
        for _ in 0..<10 { outcomes.append(await ClientFixtures.outcome(client, ClientFixtures.notification(), via: path)) }
        outcomes += await Self.sendAll(client, Array(repeating: ClientFixtures.notification(), count: 20), via: path)
        let failures = outcomes.filter { (try? $0.get()) == nil }
        #expect(failures.isEmpty, "\(failures.count) of \(outcomes.count) failed, such as \(failures.first.map { "\($0)" } ?? "")")
        #expect(Self.tooSoonTokenChanges(mock).isEmpty, "no connection changed its token sooner than 20 minutes")
        #expect(client.providerTokensSigned == 2, "one fresh token, reused on the new connections")
        await client.shutdown()
    }

    /// A scheduled refresh: a connection that has carried the old token for 20 minutes or more
    /// changes to the new one; one opened late in the old token's life is replaced instead.
    @Test(arguments: ClientFixtures.SendPath.allCases)
    func aRefreshChangesTokensOnlyOnConnectionsThatHaveCarriedTheOldOneForTwentyMinutes(
        path: ClientFixtures.SendPath
    ) async throws {
        let clock = ManualClock()
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs, now: clock.reader)
        defer { mock.stop() }
        var configuration = try ClientFixtures.configuration(for: mock)
        configuration.tokenRefreshInterval = .seconds(30 * 60)
        // One push per connection, so that two at once use two connections whatever APNs allows.
        configuration.maximumStreamsPerConnection = 1
        configuration.retryPolicy = .none
        let client = try APNsClient(configuration: configuration, now: clock.reader)
        let first = try await ClientFixtures.send(client, ClientFixtures.notification(), .sandbox, via: path)
        let early = try #require(mock.capture.records(matching: CaptureFilter(apnsID: first.apnsID)).first?.connectionID)

        // Minute 25: a second connection takes the first token.
        clock.advance(by: 25 * 60)
        try await Self.openTwoConnections(client, mock, via: path)
        try #require(client.connectionsOpened(to: .sandbox) == 2)

        // Minute 35: the second token is due. The first connection has carried the first
        // token for 35 minutes, the second for 10.
        clock.advance(by: 10 * 60)
        let sequenceBefore = mock.capture.records().map(\.sequence).max() ?? 0
        try mock.faults.add(FaultRule(id: "slow", count: 2, action: .delay(.seconds(1))))
        var outcomes = await Self.sendAll(client, [ClientFixtures.notification(), ClientFixtures.notification()], via: path)
        for _ in 0..<4 { outcomes.append(await ClientFixtures.outcome(client, ClientFixtures.notification(), via: path)) }
        let failures = outcomes.filter { (try? $0.get()) == nil }
        #expect(failures.isEmpty, "\(failures)")
        #expect(Self.tooSoonTokenChanges(mock).isEmpty, "no connection changed its token sooner than 20 minutes")
        #expect(client.providerTokensSigned == 2)
        let afterRefresh = mock.capture.records().filter { $0.sequence > sequenceBefore }
        #expect(afterRefresh.contains { $0.connectionID == early && $0.outcome.status == 200 },
                "the connection that carried the old token for 35 minutes changed to the new one")
        await client.shutdown()
    }

    /// Any answer but a provider-token error means APNs took the token (or never judged it):
    /// a connection whose pushes are all rejected for their device (410 here) has carried its
    /// token as long as one whose pushes are accepted, and at a refresh changes to the new
    /// token instead of being replaced.
    @Test(arguments: ClientFixtures.SendPath.allCases)
    func aConnectionWhosePushesAllGet410KeepsItsPlaceAcrossARefresh(path: ClientFixtures.SendPath) async throws {
        let clock = ManualClock()
        let gone = String(repeating: "12", count: 32)
        let goneToken = try #require(DeviceToken(gone))
        let since = clock.now
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs, configure: {
            $0.registry.devices[goneToken] = RegisteredDevice(
                token: goneToken, bundleID: ClientFixtures.topic, environment: .sandbox, state: .unregistered(since: since))
        }, now: clock.reader)
        defer { mock.stop() }
        var configuration = try ClientFixtures.configuration(for: mock)
        configuration.tokenRefreshInterval = .seconds(30 * 60)
        configuration.retryPolicy = .none
        let client = try APNsClient(configuration: configuration, now: clock.reader)
        // Minute 0 and minute 35, when the second token is due.
        for minute in [0, 35] {
            let result = await ClientFixtures.outcome(client, ClientFixtures.notification(device: gone), via: path)
            #expect(result.failureRejection?.reason == .unregistered, "minute \(minute): \(result)")
            clock.advance(by: 35 * 60)
        }
        #expect(client.providerTokensSigned == 2)
        let records = mock.capture.records()
        #expect(records.map(\.outcome.status) == [410, 410])
        #expect(Set(records.compactMap(\.token?.fingerprint)).count == 2, "each push carried the token of its time")
        #expect(Set(records.map(\.connectionID)).count == 1, "the connection changed tokens instead of being replaced")
        #expect(client.connectionsOpened(to: .sandbox) == 1)
        #expect(Self.tooSoonTokenChanges(mock).isEmpty)
        await client.shutdown()
    }

    /// Defence in depth: should a connection nonetheless be refused for changing tokens too
    /// soon, the push is not at fault. The connection is left and the push sent once more.
    @Test(arguments: ClientFixtures.SendPath.allCases)
    func tooManyProviderTokenUpdatesLeavesTheConnectionAndSendsThePushOnceMoreOnAnother(
        path: ClientFixtures.SendPath
    ) async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs)
        defer { mock.stop() }
        var configuration = try ClientFixtures.configuration(for: mock)
        configuration.retryPolicy = .none
        let client = try APNsClient(configuration: configuration)
        _ = try await ClientFixtures.send(client, ClientFixtures.notification(), .sandbox, via: path)

        try mock.faults.add(FaultRule(id: "tmptu-once", count: 1, action: .status(429, reason: .tooManyProviderTokenUpdates)))
        let apnsID = UUID().uuidString.lowercased()
        let response = try await ClientFixtures.send(client, ClientFixtures.notification(apnsID: apnsID), .sandbox, via: path)
        #expect(response.apnsID == apnsID)
        #expect(response.attempts == 1, "sending on another connection is not a retry")
        let records = mock.capture.records(matching: CaptureFilter(apnsID: apnsID))
        #expect(records.map(\.outcome.status) == [429, 200], "the same apns-id both times")
        try #require(records.count == 2)
        #expect(records[0].connectionID != records[1].connectionID)

        // The refused connection is left: the next push goes on the new one.
        let next = try await ClientFixtures.send(client, ClientFixtures.notification(), .sandbox, via: path)
        #expect(mock.capture.records(matching: CaptureFilter(apnsID: next.apnsID)).map(\.connectionID) == [records[1].connectionID])
        #expect(client.connectionsOpened(to: .sandbox) == 2)

        // A server that refuses every connection so gets one resend per push, not a loop.
        try mock.faults.replaceAll([FaultRule(id: "tmptu", action: .status(429, reason: .tooManyProviderTokenUpdates))])
        let result = await ClientFixtures.outcome(client, ClientFixtures.notification(), via: path)
        guard case let .failure(.rejected(rejection)) = result else {
            Issue.record("expected TooManyProviderTokenUpdates, got \(result)")
            return
        }
        #expect(rejection.reason == .tooManyProviderTokenUpdates)
        #expect(mock.capture.records(matching: CaptureFilter(apnsID: rejection.apnsID)).count == 2)
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
