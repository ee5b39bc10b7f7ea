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

    /// An HTTP/2-only server (as APNs) answers an HTTP/1.1 request in HTTP/1.1: 505, through
    /// the handler, and closes; over TLS (no ALPN agreed) and over cleartext alike. An HTTP/2
    /// client is served as before.
    @Test(arguments: [true, false])
    func anHTTP2OnlyServerAnswersHTTP1With505(tls: Bool) async throws {
        let handler = RecordingHandler()
        let server = try TestServer(tls: tls, handler: handler) { $0.acceptsHTTP1 = false }
        defer { server.shutdown() }

        let tlsArguments = tls ? ["--cacert", TestCertificates.ca] : []
        let http1 = try await Curl.request(tlsArguments + ["--http1.1", "-d", "{}", server.url("/3/device/ab")])
        let http2 = try await Curl.request(tlsArguments + [tls ? "--http2" : "--http2-prior-knowledge", server.url("/h2")])

        #expect(http1.status == 505, "\(http1.result.stdout) \(http1.result.stderr)")
        #expect(http1.version == "1.1")
        #expect(http1.body == "this server speaks HTTP/2 only\n")
        #expect(http2.status == 200 && http2.version == "2")
        #expect(handler.requests.map(\.path) == ["/h2"], "the HTTP/1.1 request never reached the handler")
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
