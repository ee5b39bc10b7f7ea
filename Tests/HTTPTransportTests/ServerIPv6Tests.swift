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
}
