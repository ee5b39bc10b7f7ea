import SystemSeam
import Testing
@testable import HTTPTransport

@Suite struct HTTP2ClientTLSTests {
    /// Answers with what the server saw of the connection, so tests can check ALPN and authority.
    static let connectionReporter = ClosureHandler { request in
        HTTPResponse(status: 200, headers: [
            "x-alpn": request.connection.applicationProtocol ?? "none",
            "x-authority": request.authority ?? "none",
            "x-version": request.version.rawValue,
        ])
    }

    @Test func verifiesTheServerAgainstTheCAAndHostNameAndNegotiatesH2() async throws {
        let server = try HTTP2ClientFixtures.server(tls: true, handler: Self.connectionReporter)
        let client = try HTTP2ClientFixtures.client(for: server, host: "localhost")
        #expect(client.state == .idle)
        try await client.connect()
        #expect(client.state == .active)
        let response = try await client.send(HTTPClientRequest(path: "/"))
        #expect(response.status == 200)
        #expect(response.headers["x-alpn"] == "h2")
        #expect(response.headers["x-version"] == "HTTP/2")
        #expect(response.headers["x-authority"] == "localhost:\(server.localAddress.port)")
        await client.close()
        #expect(client.state == .closed)
        await server.shutdown(gracePeriod: .milliseconds(200))
    }

    @Test func aCAThatDidNotIssueTheServerCertificateFailsTheHandshake() async throws {
        let server = try HTTP2ClientFixtures.server(tls: true, handler: Self.connectionReporter)
        let client = try HTTP2ClientFixtures.client(for: server) {
            $0.tls = .makeClientConfiguration(trustRootsPath: HTTP2ClientFixtures.unrelatedCA)
        }
        let result = await outcome(of: client, HTTPClientRequest(path: "/"))
        guard case let .failure(.tlsHandshakeFailed(underlying)) = result else {
            Issue.record("expected tlsHandshakeFailed, got \(result)")
            return
        }
        #expect("\(underlying)".contains("certificate verification failed"))
        #expect(client.state == .closed)
        // The failure sticks: a client is one connection.
        let again = await outcome(of: client, HTTPClientRequest(path: "/"))
        #expect(again == .failure(.tlsHandshakeFailed(underlying)))
        #expect(server.metrics.requests == 0)
        await client.close()
        await server.shutdown(gracePeriod: .milliseconds(200))
    }

    @Test func aServerNameTheCertificateDoesNotCoverFailsTheHandshake() async throws {
        let server = try HTTP2ClientFixtures.server(tls: true, handler: Self.connectionReporter)
        let client = try HTTP2ClientFixtures.client(for: server, host: "127.0.0.1") { $0.serverName = "wrong.example.com" }
        let result = await outcome(of: client, HTTPClientRequest(path: "/"))
        guard case let .failure(error) = result, case .tlsHandshakeFailed = error else {
            Issue.record("expected tlsHandshakeFailed, got \(result)")
            return
        }
        #expect(error.description.contains("hostname mismatch"))
        #expect(error.description.contains("server name"))
        await client.close()
        await server.shutdown(gracePeriod: .milliseconds(200))
    }

    @Test func aServerNameTheCertificateCoversSucceedsOverAnIPAddress() async throws {
        let server = try HTTP2ClientFixtures.server(tls: true, handler: Self.connectionReporter)
        let client = try HTTP2ClientFixtures.client(for: server, host: "127.0.0.1") { $0.serverName = "api.push.apple.com" }
        let response = try await client.send(HTTPClientRequest(path: "/", authority: "api.push.apple.com"))
        #expect(response.status == 200)
        #expect(response.headers["x-authority"] == "api.push.apple.com")
        await client.close()
        await server.shutdown(gracePeriod: .milliseconds(200))
    }

    @Test(arguments: [false, true])
    func worksOverIPv6Loopback(tls: Bool) async throws {
        let server = try HTTP2ClientFixtures.server(tls: tls, host: "::1", handler: Self.connectionReporter)
        // The certificate lists IP ::1, so the literal is verified as an IP address.
        let client = try HTTP2ClientFixtures.client(for: server, host: "::1")
        let response = try await client.send(HTTPClientRequest(path: "/"))
        #expect(response.status == 200)
        #expect(response.headers["x-authority"] == "[::1]:\(server.localAddress.port)")
        #expect(response.headers["x-alpn"] == (tls ? "h2" : "none"))
        await client.close()
        await server.shutdown(gracePeriod: .milliseconds(200))
    }

    @Test func withoutALPNTheClientSpeaksHTTP2ByPriorKnowledge() async throws {
        let server = try HTTP2ClientFixtures.server(tls: true, handler: Self.connectionReporter)
        let client = try HTTP2ClientFixtures.client(for: server) { $0.negotiatesALPN = false }
        let response = try await client.send(HTTPClientRequest(path: "/"))
        #expect(response.status == 200)
        #expect(response.headers["x-alpn"] == "none")
        #expect(response.headers["x-version"] == "HTTP/2")
        await client.close()
        await server.shutdown(gracePeriod: .milliseconds(200))
    }

    @Test func aServerThatDoesNotSelectH2FailsClearly() async throws {
        let server = try HTTP2ClientFixtures.server(tls: true, handler: Self.connectionReporter)
        let client = try HTTP2ClientFixtures.client(for: server) { $0.tls?.applicationProtocols = ["http/1.1"] }
        await #expect(throws: HTTPClientError.alpnNotNegotiated(selected: "http/1.1")) {
            try await client.connect()
        }
        #expect(HTTPClientError.alpnNotNegotiated(selected: "http/1.1").description.contains("negotiatesALPN"))
        #expect(client.state == .closed)
        await client.close()
        await server.shutdown(gracePeriod: .milliseconds(200))
    }

    @Test func aRefusedConnectFailsWithConnectFailed() async throws {
        // Port 1, where nothing listens: a port bound and closed here could be taken at once by
        // a listener of a test running alongside.
        let client = try HTTP2Client(configuration: HTTP2ClientConfiguration(host: "127.0.0.1", port: 1))
        let result = await outcome(of: client, HTTPClientRequest(path: "/"))
        guard case let .failure(.connectFailed(underlying)) = result else {
            Issue.record("expected connectFailed, got \(result)")
            return
        }
        #expect(underlying == .system(call: "connect", errno: ECONNREFUSED))
        await client.close()
    }

    @Test func aServerThatNeverFinishesTheHandshakeHitsTheConnectTimeout() async throws {
        // The kernel completes TCP for a listener that never accepts, so TLS waits forever.
        let silent = try ListeningSocket(address: SocketAddress(host: "127.0.0.1", port: 0))
        var configuration = HTTP2ClientConfiguration(
            host: "127.0.0.1", port: silent.address.port,
            tls: .makeClientConfiguration(trustRootsPath: HTTP2ClientFixtures.ca))
        configuration.connectTimeout = .milliseconds(300)
        let client = try HTTP2Client(configuration: configuration)
        await #expect(throws: HTTPClientError.timedOut(.connect, after: .milliseconds(300))) {
            try await client.connect()
        }
        await client.close()
        withExtendedLifetime(silent) {}
    }
}
