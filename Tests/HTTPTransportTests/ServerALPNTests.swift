import Foundation
import Testing
@testable import HTTPTransport

/// Protocol selection over TLS: by ALPN, and by sniffing the preface when a client offers none.
@Suite(.timeLimit(.minutes(1)))
struct ServerALPNTests {
    /// A client like some Python APNs libraries: TLS without ALPN, HTTP/2 by prior knowledge, `host` not `:authority`.
    @Test func tlsWithoutALPNSpeaksHTTP2ByPriorKnowledge() async throws {
        let handler = RecordingHandler()
        let server = try TestServer(tls: true, handler: handler)
        defer { server.shutdown() }
        let script = #"""
port, cafile = int(sys.argv[1]), sys.argv[2]
client = connect(port, tls=True, cafile=cafile)
authority = "127.0.0.1:%d" % port
client.send(1, [(":method", "GET"), (":scheme", "https"), (":path", "/no-alpn"), ("host", authority)])
client.pump(lambda c: c.ended(1))
client.report()
"""#

        let report = try await PythonH2.run(script, [String(server.port), TestCertificates.ca])

        #expect(report.alpn == nil)
        let response = try #require(report.response(1))
        #expect(response.status == 200)
        #expect(response.body == "ok GET /no-alpn 0\n")
        let request = try #require(handler.requests.first)
        #expect(request.version == .http2)
        #expect(request.connection.applicationProtocol == nil)
        #expect(request.connection.isSecure)
        #expect(request.authority == "127.0.0.1:\(server.port)")
        #expect(request.authority == request.headers["host"])
    }

    @Test func offeringOnlyHTTP1SelectsHTTP1() async throws {
        let handler = RecordingHandler()
        let server = try TestServer(tls: true, handler: handler)
        defer { server.shutdown() }

        // curl --http1.1 offers only http/1.1 in ALPN; -v reports what the server selected.
        let reply = try await Curl.request(["-v", "--http1.1", "--cacert", TestCertificates.ca, server.url("/h1-alpn")])

        #expect(reply.result.succeeded, "\(reply.result.stderr)")
        #expect(reply.version == "1.1")
        #expect(reply.body == "ok GET /h1-alpn 0\n")
        let request = try #require(handler.requests.first)
        #expect(request.connection.applicationProtocol == "http/1.1")
        #expect(request.version == .http1_1)
        #expect(reply.result.stderr.contains("ALPN: server accepted http/1.1"), "\(reply.result.stderr)")
    }

    @Test func offeringBothPrefersHTTP2() async throws {
        let server = try TestServer(tls: true, handler: RecordingHandler())
        defer { server.shutdown() }
        let script = #"""
client = connect(int(sys.argv[1]), tls=True, cafile=sys.argv[2], alpn=["http/1.1", "h2"])
client.report()
"""#

        let report = try await PythonH2.run(script, [String(server.port), TestCertificates.ca])

        #expect(report.alpn == "h2")
    }
}
