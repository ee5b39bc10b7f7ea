import PushTestSupport
import Testing
@testable import HTTPTransport

@Suite struct HTTP2ClientPingAndSettingsTests {
    @Test func pingIsAnsweredAndConnectsFirstWhenIdle() async throws {
        let server = try HTTP2ClientFixtures.server(tls: true, handler: HTTP2ClientFixtures.echo)
        let client = try HTTP2ClientFixtures.client(for: server)
        try await withHTTP2ClientTimeout(.seconds(60)) {
            #expect(client.state == .idle)
            let roundTrip = try await client.ping()
            #expect(roundTrip >= .zero)
            #expect(client.state == .active)
            // Several at once are each answered.
            try await withThrowingTaskGroup(of: Duration.self) { group in
                for _ in 0..<5 { group.addTask { try await client.ping() } }
                var answered = 0
                for try await _ in group { answered += 1 }
                #expect(answered == 5)
            }
            let response = try await client.send(HTTPClientRequest(path: "/"))
            #expect(response.status == 200)
            // The callback form needs no task to wait.
            let answered = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                client.ping { result in continuation.resume(returning: (try? result.get()) != nil) }
            }
            #expect(answered)
        }
        await client.close()
        await #expect(throws: HTTPClientError.closed) { try await client.ping() }
        await server.shutdown(gracePeriod: .milliseconds(200))
    }

    /// An h2 server (python `h2`) that completes the handshake, then reads and answers nothing:
    /// a black-holed connection.
    private static let blackHole = #"""
import time
import h2.config, h2.connection, h2.events

sock = accept_one()
conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=False))
conn.initiate_connection()
sock.sendall(conn.data_to_send())
acknowledged = False
while not acknowledged:
    data = sock.recv(65536)
    if not data:
        sys.exit("the client closed first")
    for event in conn.receive_data(data):
        acknowledged = acknowledged or isinstance(event, h2.events.SettingsAcknowledged)
    sock.sendall(conn.data_to_send())
print("silent", flush=True)
sock.settimeout(60)
while sock.recv(65536):
    pass
print("closed", flush=True)
"""#

    @Test func anUnansweredPingTimesOutAndClosesTheConnection() async throws {
        let (server, port) = try await PythonH2Server.start(Self.blackHole)
        defer { _ = server.terminate() }
        var configuration = HTTP2ClientConfiguration(host: "127.0.0.1", port: port)
        configuration.pingTimeout = .milliseconds(300)
        configuration.requestTimeout = nil
        let client = try HTTP2Client(configuration: configuration)
        try await client.connect()
        #expect(await onThread { server.waitForOutput(containing: "silent") } != nil, "\(server.standardError)")
        let (ping, request) = try await withHTTP2ClientTimeout(.seconds(60)) {
            // A request with no timeout would wait forever on a black-holed connection.
            async let request = outcome(of: client, HTTPClientRequest(path: "/never-answered"))
            let ping = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Duration, HTTPClientError>, Never>) in
                client.ping { continuation.resume(returning: $0) }
            }
            return (ping, await request)
        }
        #expect(ping == .failure(.timedOut(.ping, after: .milliseconds(300))))
        #expect(request == .failure(.connectionClosed(nil)), "failed as on a lost connection")
        #expect(client.state == .closed)
        #expect(await onThread { server.waitForOutput(containing: "closed") } != nil, "the socket was closed")
        #expect(await outcome(of: client, HTTPClientRequest(path: "/")) == .failure(.connectionClosed(nil)))
        await client.close()
    }

    @Test func pingFailsWithTheConnectError() async throws {
        // Port 1: nothing listens there. (A port freed by a server shut down here could be
        // taken by another test's listener before the connect.)
        let client = try HTTP2Client(configuration: HTTP2ClientConfiguration(host: "127.0.0.1", port: 1))
        let result: Result<Duration, HTTPClientError>
        do {
            result = .success(try await client.ping())
        } catch {
            result = .failure(error)
        }
        guard case .failure(.connectFailed) = result else {
            Issue.record("expected connectFailed, got \(result)")
            return
        }
        await client.close()
    }

    @Test func peerMaxConcurrentStreamsFollowsTheServersSettings() async throws {
        let server = try HTTP2ClientFixtures.server(tls: false, handler: ClosureHandler { request in
            if request.path == "/lower" { request.connection.setMaxConcurrentStreams(2) }
            return HTTPResponse(status: 200, text: "ok")
        }) { $0.maxConcurrentStreams = 7 }
        let client = try HTTP2ClientFixtures.client(for: server, host: "127.0.0.1")
        try await withHTTP2ClientTimeout(.seconds(60)) {
            #expect(client.peerMaxConcurrentStreams == nil, "nothing is known before the server's SETTINGS")
            _ = try await client.send(HTTPClientRequest(path: "/"))
            #expect(client.peerMaxConcurrentStreams == 7)
            _ = try await client.send(HTTPClientRequest(path: "/lower"))
            #expect(await eventually { client.peerMaxConcurrentStreams == 2 })
        }
        await client.close()
        await server.shutdown(gracePeriod: .milliseconds(200))
    }
}
