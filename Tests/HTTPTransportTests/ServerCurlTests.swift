import Foundation
import Testing
@testable import HTTPTransport

/// The server against curl, an independent HTTP/2 and HTTP/1.1 client.
@Suite(.timeLimit(.minutes(1)))
struct ServerCurlTests {
    @Test func http2OverTLSWithALPN() async throws {
        let handler = RecordingHandler()
        let server = try TestServer(tls: true, handler: handler)
        defer { server.shutdown() }

        let reply = try await Curl.request(["--http2", "--cacert", TestCertificates.ca, server.url("/tls-h2")])

        #expect(reply.result.succeeded, "\(reply.result.stderr)")
        #expect(reply.version == "2")
        #expect(reply.status == 200)
        #expect(reply.body == "ok GET /tls-h2 0\n")
        let request = try #require(handler.requests.first)
        #expect(request.version == .http2)
        #expect(request.scheme == "https")
        #expect(request.connection.isSecure)
        #expect(request.connection.applicationProtocol == "h2")
    }

    @Test func http2PriorKnowledgeOnCleartext() async throws {
        let handler = RecordingHandler()
        let server = try TestServer(handler: handler)
        defer { server.shutdown() }

        let reply = try await Curl.request(["--http2-prior-knowledge", server.url("/h2c")])

        #expect(reply.result.succeeded, "\(reply.result.stderr)")
        #expect(reply.version == "2")
        #expect(reply.body == "ok GET /h2c 0\n")
        let request = try #require(handler.requests.first)
        #expect(request.version == .http2)
        #expect(!request.connection.isSecure)
        #expect(request.connection.applicationProtocol == nil)
    }

    @Test(arguments: [true, false])
    func http1KeepAliveReusesOneConnection(tls: Bool) async throws {
        let handler = RecordingHandler()
        let server = try TestServer(tls: tls, handler: handler)
        defer { server.shutdown() }

        let result = try await Curl.run(["--http1.1", "--cacert", TestCertificates.ca, "-w", "[%{http_version}]",
                                         server.url("/first"), server.url("/second")])

        #expect(result.succeeded, "\(result.stderr)")
        #expect(result.stdout == "ok GET /first 0\n[1.1]ok GET /second 0\n[1.1]")
        #expect(server.metrics.acceptedConnections == 1)
        let requests = handler.requests
        #expect(requests.map(\.path) == ["/first", "/second"])
        #expect(requests.allSatisfy { $0.version == .http1_1 })
        #expect(Set(requests.map(\.connection.id)).count == 1)
    }

    @Test func http1ChunkedRequestBodyArrivesIntact() async throws {
        let handler = RecordingHandler()
        let server = try TestServer(handler: handler)
        defer { server.shutdown() }
        // 200 KB, more than curl puts into one chunk.
        let payload = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 / 997) }

        let reply = try await Curl.request(["--http1.1", "-X", "POST", "-H", "Transfer-Encoding: chunked",
                                            "--data-binary", "@-", server.url("/chunked")], stdin: Data(payload))

        #expect(reply.result.succeeded, "\(reply.result.stderr)")
        #expect(reply.status == 200)
        #expect(reply.body == "ok POST /chunked 200000\n")
        let request = try #require(handler.requests.first)
        #expect(request.headers["transfer-encoding"] == "chunked")
        #expect(request.headers["content-length"] == nil)
        #expect(request.body == payload)
    }
}
