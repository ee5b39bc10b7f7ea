import Foundation
import Synchronization
import Testing
@testable import HTTPTransport

/// An endpoint loads TLS once and leaves name lookups to connecting, off the event loop.
@Suite struct HTTP2ClientEndpointTests {
    @Test func aNameThatDoesNotResolveFailsTheConnectionNotTheClient() async throws {
        // Creating a client must not block on DNS (a pool makes clients on event loops).
        let client = try HTTP2Client(configuration: HTTP2ClientConfiguration(host: "no-such-host.invalid", port: 443))
        let result = await outcome(of: client, HTTPClientRequest(path: "/"))
        guard case let .failure(error) = result else {
            Issue.record("expected a failed connection, got \(result)")
            return
        }
        #expect(error == .connectFailed(.invalidAddress("no-such-host.invalid")))
        #expect(client.state == .closed)
        await client.close()
    }

    @Test func aNameIsResolvedOffTheLoopAndAnsweredOnIt() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let loop = group.next()
        let endpoint = try HTTP2ClientEndpoint(configuration: HTTP2ClientConfiguration(host: "localhost", port: 8443))
        #expect(endpoint.literalAddress == nil)
        let (answer, returnedFirst) = await withCheckedContinuation {
            (done: CheckedContinuation<(Result<SocketAddress, TransportError>, Bool), Never>) in
            try? loop.execute {
                let returned = Atomic<Bool>(false)
                endpoint.resolve(on: loop) { result in
                    // Answered on the loop, after resolve(on:) gave the loop back.
                    precondition(loop.inEventLoop)
                    done.resume(returning: (result, returned.load(ordering: .acquiring)))
                }
                returned.store(true, ordering: .releasing)
            }
        }
        #expect(returnedFirst, "the lookup ran on the loop, holding it until DNS answered")
        let address = try answer.get()
        #expect(address.port == 8443)
        #expect(["127.0.0.1", "::1"].contains(address.host), "\(address)")
    }

    @Test func anIPLiteralNeedsNoLookup() throws {
        for host in ["127.0.0.1", "::1", "[::1]"] {
            let endpoint = try HTTP2ClientEndpoint(configuration: HTTP2ClientConfiguration(host: host, port: 2197))
            #expect(endpoint.literalAddress?.port == 2197, "\(host)")
        }
        #expect(throws: TransportError.invalidAddress("127.0.0.1:70000 (port out of range)")) {
            try HTTP2ClientEndpoint(configuration: HTTP2ClientConfiguration(host: "127.0.0.1", port: 70000))
        }
    }

    @Test func clientsOfOneEndpointShareItsTLSContextAndEachConnects() async throws {
        let server = try HTTP2ClientFixtures.server(tls: true, handler: HTTP2ClientFixtures.echo)
        let group = try EventLoopGroup(threads: 2)
        let endpoint = try HTTP2ClientEndpoint(configuration: HTTP2ClientConfiguration(
            host: "localhost", port: server.localAddress.port,
            tls: .makeClientConfiguration(trustRootsPath: HTTP2ClientFixtures.ca)))
        let clients = (0..<3).map { _ in HTTP2Client(endpoint: endpoint, group: group) }
        for (index, client) in clients.enumerated() {
            let request = HTTPClientRequest(method: "POST", path: "/echo", headers: ["x-marker": "\(index)"],
                                            body: Array("client \(index)".utf8))
            let response = try await client.send(request)
            #expect(response.status == 200)
            #expect(response.body == Array("client \(index)".utf8))
            #expect(response.headers["x-echo-marker"] == "\(index)")
        }
        #expect(endpoint.tlsContext != nil)
        for client in clients { await client.close() }
        group.shutdown()
        await server.shutdown(gracePeriod: .milliseconds(200))
    }

    @Test func unreadableTLSFilesFailTheEndpoint() {
        #expect(throws: TransportError.self) {
            try HTTP2ClientEndpoint(configuration: HTTP2ClientConfiguration(
                host: "localhost", port: 443, tls: .makeClientConfiguration(trustRootsPath: "/nonexistent/ca.pem")))
        }
    }
}
