import Foundation
import Testing
@testable import HTTPTransport

/// Listening on IPv6.
@Suite(.timeLimit(.minutes(1)))
struct ServerIPv6Tests {
    @Test func servesOnIPv6Loopback() async throws {
        let handler = RecordingHandler()
        let server = try TestServer(tls: true, host: "::1", handler: handler)
        defer { server.shutdown() }

        let url = server.url("/v6")
        let reply = try await Curl.request(["-g", "--http2", "--cacert", TestCertificates.ca, url])

        #expect(url == "https://[::1]:\(server.port)/v6")
        #expect(reply.result.succeeded, "\(reply.result.stderr)")
        #expect(reply.version == "2")
        #expect(reply.body == "ok GET /v6 0\n")
        let request = try #require(handler.requests.first)
        #expect(request.connection.remoteAddress?.isIPv6 == true)
        #expect(request.connection.localAddress?.host == "::1")
        #expect(request.authority == "[::1]:\(server.port)")
    }

    /// `::` is every address of both families: one listener answers IPv4 and IPv6 loopback.
    @Test func unspecifiedIPv6AddressServesBothFamilies() async throws {
        let handler = RecordingHandler()
        let server = try TestServer(host: "::", handler: handler)
        defer { server.shutdown() }

        let v4 = try await Curl.request(["--http2-prior-knowledge", "http://127.0.0.1:\(server.port)/four"])
        let v6 = try await Curl.request(["-g", "--http2-prior-knowledge", "http://[::1]:\(server.port)/six"])

        #expect(v4.result.succeeded, "\(v4.result.stderr)")
        #expect(v6.result.succeeded, "\(v6.result.stderr)")
        #expect(v4.body == "ok GET /four 0\n")
        #expect(v6.body == "ok GET /six 0\n")
        #expect(handler.requests.count == 2)
    }
}
