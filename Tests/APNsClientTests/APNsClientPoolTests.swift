import APNsClient
import APNsCore
import Foundation
import HTTPTransport
import JWTVerify
import MockAPNs
import PushTestSupport
import Synchronization
import SystemSeam
import Testing

/// The connection pool under GOAWAY, stream limits, dropped connections and idleness.
@Suite(.timeLimit(.minutes(3)))
struct APNsClientPoolTests {
    /// Sends `count` pushes at once; returns their outcomes.
    static func burst(_ client: APNsClient, count: Int, environment: APNsEnvironment = .sandbox)
        async -> [Result<APNsResponse, APNsClientError>] {
        await withTaskGroup(of: Result<APNsResponse, APNsClientError>.self) { group in
            for _ in 0..<count {
                group.addTask { await ClientFixtures.outcome(client, ClientFixtures.notification(), environment) }
            }
            var results: [Result<APNsResponse, APNsClientError>] = []
            for await result in group { results.append(result) }
            return results
        }
    }

    /// ``burst(_:count:environment:)``, and the most streams the mock had open at once meanwhile.
    static func burstWatchingStreams(_ client: APNsClient, count: Int, on mock: MockAPNsServer)
        async -> (results: [Result<APNsResponse, APNsClientError>], peakOpenStreams: Int) {
        let peak = Atomic<Int>(0)
        let done = Atomic<Bool>(false)
        let watcher = Task.detached {
            while !done.load(ordering: .relaxed) {
                let open = mock.transportMetrics.openStreams
                if open > peak.load(ordering: .relaxed) { peak.store(open, ordering: .relaxed) }
                try? await Task.sleep(for: .milliseconds(2))
            }
        }
        let results = await burst(client, count: count)
        done.store(true, ordering: .relaxed)
        await watcher.value
        return (results, peak.load(ordering: .relaxed))
    }

    @Test func afterGOAWAYTheNextPushesUseANewConnection() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs)
        defer { mock.stop() }
        let client = try APNsClient(configuration: try ClientFixtures.configuration(for: mock))
        _ = try await client.send(ClientFixtures.notification(), environment: .sandbox)
        try mock.faults.add(FaultRule(id: "bye", count: 1, action: .goAway(errorCode: .noError, reason: .shutdown)))
        // The push the GOAWAY follows is answered normally.
        let answered = try await client.send(ClientFixtures.notification(), environment: .sandbox)
        #expect(answered.attempts == 1)
        for index in 0..<5 {
            let response = try await client.send(ClientFixtures.notification(), environment: .sandbox)
            // The first may still meet the old connection before its GOAWAY is read: it is refused
            // unprocessed and sent again at once, which is not a retry.
            #expect(response.attempts == 1, "push \(index)")
        }
        #expect(client.connectionsOpened(to: .sandbox) == 2)
        let connections = Set(mock.capture.records().map(\.connectionID))
        #expect(connections.count == 2)
        #expect(mock.capture.records().count == 7, "a push refused by GOAWAY never reached the handler")
        #expect(mock.capture.records().allSatisfy { $0.outcome.status == 200 })
        await client.shutdown()
    }

    /// An h2c server (python `h2`) that answers every request as APNs answers one on a
    /// connection it has given up on: GOAWAY NO_ERROR, last stream 0 (or the stream given as
    /// its argument), debug data `{"reason":"BadCertificateEnvironment"}`, then it closes. It
    /// serves connection after connection and prints `request N` for each request.
    static let fatalGoAwayServer = #"""
import socket, sys
import h2.config, h2.connection, h2.events
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(8)
print("port", listener.getsockname()[1], flush=True)
requests = 0
while True:
    sock, _ = listener.accept()
    sock.settimeout(20)
    conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=False))
    conn.initiate_connection()
    sock.sendall(conn.data_to_send())
    done = False
    while not done:
        try:
            data = sock.recv(65536)
        except OSError:
            break
        if not data:
            break
        for event in conn.receive_data(data):
            if isinstance(event, h2.events.RequestReceived) and not done:
                requests += 1
                print("request", requests, flush=True)
                conn.close_connection(error_code=0, additional_data=b'{"reason":"BadCertificateEnvironment"}',
                                      last_stream_id=int(sys.argv[1]) if len(sys.argv) > 1 else 0)
                done = True
        sock.sendall(conn.data_to_send())
    sock.close()
"""#

    /// APNs ends a connection for a fatal reason with GOAWAY, last stream 0 and the reason as
    /// debug data: the push it left unprocessed gets that reason as a typed rejection, and is
    /// not resent to meet the same on new connections.
    @Test(arguments: ClientFixtures.SendPath.allCases)
    func aPushLeftUnprocessedByAGOAWAYWithAFatalReasonIsRejectedWithThatReason(path: ClientFixtures.SendPath) async throws {
        try await expectRejectedOnceByFatalGoAway(lastStreamID: 0, path: path)
    }

    /// The same GOAWAY naming the push's stream as perhaps processed, then the connection
    /// closing before any answer: the push is lost, not refused, yet the reason still dooms it
    /// on every connection, so it is rejected with it instead of retried.
    @Test(arguments: ClientFixtures.SendPath.allCases)
    func aPushLostAfterAGOAWAYWithAFatalReasonIsRejectedWithThatReason(path: ClientFixtures.SendPath) async throws {
        try await expectRejectedOnceByFatalGoAway(lastStreamID: 1, path: path)
    }

    private func expectRejectedOnceByFatalGoAway(lastStreamID: Int, path: ClientFixtures.SendPath) async throws {
        let server = try BackgroundProcess("/usr/bin/env", ["python3", "-c", Self.fatalGoAwayServer, "\(lastStreamID)"])
        defer {
            server.signal(SIGKILL)
            _ = server.wait(timeout: 5)
        }
        let announced = try await onThread { server.waitForOutput(containing: "\n") }
        let port = try #require(announced?.split(separator: "\n").first?.split(separator: " ").last.flatMap { Int($0) },
                                "\(server.standardError)")
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs)
        defer { mock.stop() }
        var configuration = try ClientFixtures.configuration(for: mock)
        configuration.sandbox = try APNsDestination(url: "http://127.0.0.1:\(port)")
        let client = try APNsClient(configuration: configuration)
        let apnsID = UUID().uuidString.lowercased()
        let result = await ClientFixtures.outcome(client, ClientFixtures.notification(apnsID: apnsID), via: path)
        #expect(result == .failure(.rejected(APNsRejection(status: 403, reason: .badCertificateEnvironment, apnsID: apnsID))))
        #expect(server.standardOutput.components(separatedBy: "request ").count - 1 == 1, "sent once, never resent")
        #expect(client.connectionsOpened(to: .sandbox) == 1)
        await client.shutdown()
    }

    @Test func goAwayWithPushesInFlightLosesNone() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs)
        defer { mock.stop() }
        var configuration = try ClientFixtures.configuration(for: mock)
        configuration.maximumConnectionsPerEnvironment = 2
        let client = try APNsClient(configuration: configuration)
        _ = try await client.send(ClientFixtures.notification(), environment: .sandbox)
        try mock.faults.add(FaultRule(id: "slow", action: .delay(.milliseconds(5))))
        try mock.faults.add(FaultRule(id: "bye", probability: 0.03, action: .goAway(errorCode: .noError, reason: nil)))
        // Eight senders of 50 pushes each: GOAWAYs arrive while later pushes are being sent.
        let results = await withTaskGroup(of: [Result<APNsResponse, APNsClientError>].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var results: [Result<APNsResponse, APNsClientError>] = []
                    for _ in 0..<50 { results.append(await ClientFixtures.outcome(client, ClientFixtures.notification())) }
                    return results
                }
            }
            var all: [Result<APNsResponse, APNsClientError>] = []
            for await results in group { all += results }
            return all
        }
        let failures = results.compactMap { if case let .failure(error) = $0 { error } else { nil } }
        #expect(failures.isEmpty, "\(failures.prefix(3))")
        let accepted = mock.capture.records().filter { $0.outcome.status == 200 }
        #expect(Set(accepted.map(\.outcome.apnsID)).count == 401)
        #expect(accepted.count == 401, "no push accepted twice")
        #expect(client.connectionsOpened(to: .sandbox) > 2, "GOAWAYs made the pool reconnect")
        await client.shutdown()
    }

    @Test func theServersStreamLimitIsHonouredAndFullConnectionsMakeThePoolGrow() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs) {
            $0.server.maxConcurrentStreams = 3
        }
        defer { mock.stop() }
        var configuration = try ClientFixtures.configuration(for: mock)
        configuration.maximumConnectionsPerEnvironment = 2
        let client = try APNsClient(configuration: configuration)
        try mock.faults.add(FaultRule(id: "slow", action: .delay(.milliseconds(150))))

        let (results, peak) = await Self.burstWatchingStreams(client, count: 30, on: mock)
        #expect(results.allSatisfy { if case .success = $0 { true } else { false } })
        #expect(client.connectionsOpened(to: .sandbox) == 2)
        #expect(Set(mock.capture.records().map(\.connectionID)).count == 2)
        // Two connections of at most 3 streams each; the server refuses (not queues) streams over its limit.
        #expect(peak <= 6, "peak \(peak) streams")
        #expect(mock.capture.records().allSatisfy { $0.outcome.status == 200 })
        await client.shutdown()
    }

    /// `maximumStreamsPerConnection` is a preference, as documented, not a cap: it makes the
    /// pool grow, and once the pool is full the pushes beyond it still run at once, up to the
    /// server's limit.
    @Test func maximumStreamsPerConnectionFillsThePoolThenIsExceededUpToTheServersLimit() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs)
        defer { mock.stop() }
        var configuration = try ClientFixtures.configuration(for: mock)
        configuration.maximumStreamsPerConnection = 1
        configuration.maximumConnectionsPerEnvironment = 2
        let client = try APNsClient(configuration: configuration)
        try mock.faults.add(FaultRule(id: "slow", action: .delay(.milliseconds(500))))

        let results = await Self.burst(client, count: 10)
        #expect(results.allSatisfy { if case .success = $0 { true } else { false } })
        #expect(client.connectionsOpened(to: .sandbox) == 2, "one stream each made the pool grow to its size")
        // Each stream stays open at least 500 ms after the mock received its push (the delay
        // rule), so pushes received less than 500 ms apart were open at once: read from the
        // capture, not by polling, which a busy machine can starve.
        let received = mock.capture.records().map(\.receivedAtMicroseconds).sorted()
        var peak = 0
        for (index, start) in received.enumerated() {
            peak = max(peak, received[index...].prefix { $0 - start < 500_000 }.count)
        }
        #expect(peak > 2, "then more than one stream per connection ran at once (\(peak))")
        await client.shutdown()
    }

    @Test func pushesSentTogetherShareTheBusiestConnectionWithRoom() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs)
        defer { mock.stop() }
        // Until a connection's first push is accepted it allows one stream, so pushes sent
        // before the first one is answered open more connections. They are handed to the
        // pool from this thread in one go (the callback send leases a connection before it
        // returns). A thread preempted between two sends for as long as a handshake and a
        // push take can still find the first connection raised: then the set-up is tried
        // again with a new client, as that is timing, not what is tested.
        var client = try APNsClient(configuration: try ClientFixtures.configuration(for: mock))
        var opened = 0
        for attempt in 1...5 {
            if attempt > 1 {
                await client.shutdown()
                client = try APNsClient(configuration: try ClientFixtures.configuration(for: mock))
            }
            let opening = Mutex<[Result<APNsResponse, APNsClientError>]>([])
            for _ in 0..<8 {
                client.send(ClientFixtures.notification(), environment: .sandbox) { result in
                    opening.withLock { $0.append(result) }
                }
            }
            for _ in 0..<500 where opening.withLock({ $0.count }) < 8 { try await Task.sleep(for: .milliseconds(20)) }
            #expect(opening.withLock { $0.count == 8 && $0.allSatisfy { if case .success = $0 { true } else { false } } })
            opened = client.connectionsOpened(to: .sandbox)
            if opened >= 2 { break }
        }
        try #require(opened >= 2)
        mock.faults.removeAll()
        // Pushes in flight together, so that a least-busy choice would spread them.
        try mock.faults.add(FaultRule(id: "slow", action: .delay(.milliseconds(200))))
        mock.capture.clear()
        // Now every connection has room for 1000: a burst goes to one of them, in one write,
        // instead of being dealt out over all of them.
        let burst = await Self.burst(client, count: 40)
        #expect(burst.allSatisfy { if case .success = $0 { true } else { false } })
        let records = mock.capture.records()
        #expect(records.count == 40)
        #expect(Set(records.map(\.connectionID)).count == 1)
        #expect(client.connectionsOpened(to: .sandbox) == opened)
        await client.shutdown()
    }

    @Test func oneStreamBeforeAuthenticationAndAfterARejectionThenManyAgain() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs)
        defer { mock.stop() }
        var configuration = try ClientFixtures.configuration(for: mock)
        configuration.maximumConnectionsPerEnvironment = 1
        let client = try APNsClient(configuration: configuration)
        try mock.faults.add(FaultRule(id: "slow", action: .delay(.milliseconds(20))))
        // A burst on a fresh connection: one stream until the first push is accepted, then the rest.
        let first = await Self.burst(client, count: 50)
        #expect(first.allSatisfy { if case .success = $0 { true } else { false } })
        // A rejection lowers the limit to 1; the next burst still goes through, on the same connection.
        let bad = await ClientFixtures.outcome(client, ClientFixtures.notification(device: "xyz"))
        #expect(bad.failureRejection?.reason == .badDeviceToken)
        let second = await Self.burst(client, count: 50)
        #expect(second.allSatisfy { if case .success = $0 { true } else { false } })
        #expect(client.connectionsOpened(to: .sandbox) == 1)
        #expect(Set(mock.capture.records().map(\.connectionID)).count == 1)
        await client.shutdown()
    }

    @Test func idleConnectionsArePingedAndStayOpen() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs) {
            $0.server.idleTimeout = .seconds(4)
        }
        defer { mock.stop() }
        for pinging in [true, false] {
            var configuration = try ClientFixtures.configuration(for: mock)
            configuration.idlePingInterval = pinging ? .milliseconds(200) : nil
            let client = try APNsClient(configuration: configuration)
            _ = try await client.send(ClientFixtures.notification(), environment: .sandbox)
            // Generous margins: a loaded CI machine may stall threads for a second or more.
            try await Task.sleep(for: .seconds(9))
            let response = try await client.send(ClientFixtures.notification(), environment: .sandbox)
            #expect(response.attempts == 1)
            // Without PINGs the mock closes the idle connection and the pool must reconnect.
            #expect(client.connectionsOpened(to: .sandbox) == (pinging ? 1 : 2), "pinging: \(pinging)")
            await client.shutdown()
        }
    }

    /// A connection that goes silent (a dead middlebox black-holes it: no answer, no close) is
    /// found by its idle PING going unanswered, closed and left, and the next push goes to a
    /// new connection instead of waiting out its request timeout there.
    @Test func aConnectionWhosePINGGoesUnansweredIsClosedAndThePushesGoToANewOne() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs)
        defer { mock.stop() }
        let proxy = try await BlackHoleProxy(targetPort: try APNsDestination(url: mock.sandboxURL).port)
        defer { proxy.stop() }
        var configuration = try ClientFixtures.configuration(for: mock)
        configuration.sandbox = try APNsDestination(url: "https://127.0.0.1:\(proxy.port)")
        configuration.idlePingInterval = .milliseconds(200)
        configuration.pingTimeout = .seconds(1)
        configuration.retryPolicy = .none
        let client = try APNsClient(configuration: configuration)
        _ = try await client.send(ClientFixtures.notification(), environment: .sandbox)

        #expect(try await proxy.blackHoleOpenConnections())
        #expect(try await proxy.clientClosed(connection: 1), "the silent connection was closed after its PING timed out")
        let response = try await client.send(ClientFixtures.notification(), environment: .sandbox)
        #expect(response.attempts == 1)
        #expect(client.connectionsOpened(to: .sandbox) == 2)
        #expect(mock.capture.records().count == 2 && mock.capture.records().allSatisfy { $0.outcome.status == 200 })
        await client.shutdown()
    }

    @Test func aDeadConnectionIsReplacedWithoutFailingThePush() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs)
        defer { mock.stop() }
        let client = try APNsClient(configuration: try ClientFixtures.configuration(for: mock))
        _ = try await client.send(ClientFixtures.notification(), environment: .sandbox)
        // Connections dropped between pushes (no push in flight): found dead at the next lease or send.
        for round in 0..<3 {
            try mock.faults.replaceAll([FaultRule(id: "drop-\(round)", count: 1, action: .closeConnection)])
            let response = try await client.send(ClientFixtures.notification(), environment: .sandbox)
            #expect(response.attempts == 2)
        }
        #expect(client.connectionsOpened(to: .sandbox) == 4)
        await client.shutdown()
    }

    /// Sends `count` pushes from `loop`'s thread with the callback send; returns, per push,
    /// whether it succeeded and whether its completion ran on `loop`.
    static func send(_ client: APNsClient, count: Int, from loop: EventLoop) async throws -> [(ok: Bool, sameLoop: Bool)] {
        let outcomes = Mutex<[(ok: Bool, sameLoop: Bool)]>([])
        try loop.execute {
            for _ in 0..<count {
                client.send(ClientFixtures.notification(), environment: .sandbox) { result in
                    let ok = if case .success = result { true } else { false }
                    let sameLoop = loop.inEventLoop
                    outcomes.withLock { $0.append((ok, sameLoop)) }
                }
            }
        }
        for _ in 0..<500 where outcomes.withLock({ $0.count }) < count { try await Task.sleep(for: .milliseconds(20)) }
        return outcomes.withLock { $0 }
    }

    /// A client with two event loops (and, if given, that many connections at most) for `mock`.
    static func twoLoopClient(for mock: MockAPNsServer, maximumConnections: Int? = nil) throws -> APNsClient {
        var configuration = try ClientFixtures.configuration(for: mock)
        configuration.eventLoopThreads = 2
        if let maximumConnections { configuration.maximumConnectionsPerEnvironment = maximumConnections }
        return try APNsClient(configuration: configuration)
    }

    @Test func aPushSentFromAnEventLoopUsesAConnectionOnThatLoop() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs)
        defer { mock.stop() }
        let client = try Self.twoLoopClient(for: mock)
        let loops = client.eventLoopGroup.loops
        // One push from each loop first: a fresh connection allows one stream until a push is
        // accepted, and a burst before that would open more. Then the first loop's connection
        // has room for 1000: the busiest-with-room rule alone would put every later push on it.
        let opening = [try await Self.send(client, count: 1, from: loops[0]), try await Self.send(client, count: 1, from: loops[1])]
        let bursts = [try await Self.send(client, count: 5, from: loops[0]), try await Self.send(client, count: 5, from: loops[1])]
        for (index, outcomes) in (opening + bursts).enumerated() {
            #expect(outcomes.allSatisfy { $0.ok } && outcomes.count == (index < 2 ? 1 : 5), "batch \(index)")
            #expect(outcomes.allSatisfy { $0.sameLoop }, "batch \(index) was answered on another loop")
        }
        #expect(client.connectionsOpened(to: .sandbox) == 2)
        let connections = mock.capture.records().map(\.connectionID)
        try #require(connections.count == 12)
        #expect(connections[0] != connections[1], "each loop has its own connection")
        #expect(connections[2..<7].allSatisfy { $0 == connections[0] })
        #expect(connections[7..<12].allSatisfy { $0 == connections[1] })
        // Pushes sent from a task (no loop) use whichever connection has room: no new one.
        _ = try await client.send(ClientFixtures.notification(), environment: .sandbox)
        #expect(client.connectionsOpened(to: .sandbox) == 2)
        await client.shutdown()
    }

    @Test func aBurstOnOneLoopLeavesTheOtherLoopsTheirShareOfThePool() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs)
        defer { mock.stop() }
        let client = try Self.twoLoopClient(for: mock, maximumConnections: 4)
        let loops = client.eventLoopGroup.loops
        // Leased together on the first loop, before any connection is allowed more than one
        // stream: each lease would open another connection, up to the whole pool.
        let burst = try await Self.send(client, count: 8, from: loops[0])
        #expect(burst.count == 8 && burst.allSatisfy { $0.ok && $0.sameLoop })
        #expect(client.connectionsOpened(to: .sandbox) == 2, "the first loop's share of 4 connections over 2 loops")
        let other = try await Self.send(client, count: 1, from: loops[1])
        #expect(other.count == 1 && other.allSatisfy { $0.ok && $0.sameLoop }, "the second loop opened its own")
        #expect(client.connectionsOpened(to: .sandbox) == 3)
        await client.shutdown()
    }

    @Test func aFullPoolLendsAnotherLoopsConnection() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs)
        defer { mock.stop() }
        let client = try Self.twoLoopClient(for: mock, maximumConnections: 1)
        let loops = client.eventLoopGroup.loops
        let first = try await Self.send(client, count: 1, from: loops[0])
        let second = try await Self.send(client, count: 3, from: loops[1])
        #expect(first.count == 1 && first.allSatisfy { $0.ok && $0.sameLoop })
        // The only connection lives on the first loop: answered there.
        #expect(second.count == 3 && second.allSatisfy { $0.ok && !$0.sameLoop })
        #expect(client.connectionsOpened(to: .sandbox) == 1)
        await client.shutdown()
    }

    @Test func afterShutdownSendsFailWithShutDown() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs)
        defer { mock.stop() }
        let client = try APNsClient(configuration: try ClientFixtures.configuration(for: mock))
        _ = try await client.send(ClientFixtures.notification(), environment: .sandbox)
        await client.shutdown()
        #expect(await ClientFixtures.outcome(client, ClientFixtures.notification()) == .failure(.shutDown))
    }
}
