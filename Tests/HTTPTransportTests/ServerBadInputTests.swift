import Foundation
import Testing
@testable import HTTPTransport

/// Malformed or oversized input: each gets a clean error or close, and the server keeps serving.
@Suite(.timeLimit(.minutes(1)))
struct ServerBadInputTests {
    static func smallLimits(_ configuration: inout HTTPServerConfiguration) {
        configuration.maxHeaderListSize = 1024
        configuration.maxBodySize = 1000
    }

    /// The handshake timeout the silent clients below meet. It also bounds the handshake of
    /// the curl request that shows the server still serves, so it leaves a loaded machine
    /// seconds for that.
    static let handshakeTimeout = Duration.seconds(5)

    static func handshakeLimits(_ configuration: inout HTTPServerConfiguration) {
        smallLimits(&configuration)
        configuration.handshakeTimeout = handshakeTimeout
    }

    /// Connects, sends `sent` and reads until the server closes, on a thread of its own (the
    /// wait is long for the two-thread cooperative pool); with the time from connecting to the close.
    static func silentExchange(_ server: TestServer, sending sent: String) async throws
        -> (bytes: [UInt8], closed: Bool, elapsed: Duration) {
        let port = server.port
        let outcome = await onThread { () -> (bytes: [UInt8], closed: Bool, elapsed: Duration)? in
            let start = ContinuousClock.now
            guard let client = try? RawClient(port: port) else { return nil }
            client.send(sent)
            // Far past the handshake timeout, however late its timer runs.
            let (bytes, closed) = client.readUntilClose(timeout: .seconds(40))
            return (bytes, closed, start.duration(to: .now))
        }
        return try #require(outcome, "could not connect to \(server.url())")
    }

    /// A fresh curl request (HTTP/2 and HTTP/1.1) succeeds, and no connection is left open.
    static func expectStillServing(_ server: TestServer, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let h2 = try await Curl.request(["--http2-prior-knowledge", server.url("/still-serving")])
        #expect(h2.status == 200 && h2.version == "2", "\(h2.result.stderr)", sourceLocation: sourceLocation)
        let h1 = try await Curl.request(["--http1.1", server.url("/still-serving")])
        #expect(h1.status == 200 && h1.version == "1.1", "\(h1.result.stderr)", sourceLocation: sourceLocation)
        #expect(await eventually { server.metrics.openConnections == 0 && server.metrics.openStreams == 0 },
                "\(server.metrics)", sourceLocation: sourceLocation)
    }

    /// Sends `request` on a new connection and returns everything up to the server's close.
    static func exchange(_ server: TestServer, _ request: String) throws -> (response: String, closed: Bool) {
        let client = try RawClient(port: server.port)
        client.send(request)
        let (bytes, closed) = client.readUntilClose()
        return (bytes.text, closed)
    }

    @Test func garbageOnCleartextGets400ThenClose() async throws {
        let server = try TestServer(handler: RecordingHandler(), configure: Self.smallLimits)
        defer { server.shutdown() }

        let (response, closed) = try Self.exchange(server, "\u{01}\u{02}\u{7f} not http at all\r\n\r\n")

        #expect(response.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), "\(response)")
        #expect(response.contains("connection: close\r\n"))
        #expect(closed)
        #expect(server.metrics.requests == 0)
        try await Self.expectStillServing(server)
    }

    @Test(arguments: ["GET\r\n\r\n", "G@T / HTTP/1.1\r\nHost: x\r\n\r\n", "GET / HTTP/1.1 trailing\r\nHost: x\r\n\r\n"])
    func badRequestLineGets400(requestLine: String) async throws {
        let server = try TestServer(handler: RecordingHandler(), configure: Self.smallLimits)
        defer { server.shutdown() }

        let (response, closed) = try Self.exchange(server, requestLine)

        #expect(response.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), "\(response)")
        #expect(closed)
        #expect(server.metrics.requests == 0)
        try await Self.expectStillServing(server)
    }

    @Test(arguments: ["GET / HTTP/3.0\r\nHost: x\r\n\r\n", "GET / HTTP/1.9\r\nHost: x\r\n\r\n"])
    func unsupportedVersionGets505(requestLine: String) async throws {
        let server = try TestServer(handler: RecordingHandler(), configure: Self.smallLimits)
        defer { server.shutdown() }

        let (response, closed) = try Self.exchange(server, requestLine)

        #expect(response.hasPrefix("HTTP/1.1 505 HTTP Version Not Supported\r\n"), "\(response)")
        #expect(closed)
        #expect(server.metrics.requests == 0)
        try await Self.expectStillServing(server)
    }

    @Test func truncatedPrefaceThenCloseIsCleanedUp() async throws {
        let handler = RecordingHandler()
        // A handshake timeout far past any wait below: the client's close must end the
        // connection, not the timer (with the 10 s default, a starved test pool could see
        // the timer end it first and miss the open connection altogether).
        let server = try TestServer(handler: handler) { $0.handshakeTimeout = .seconds(600) }
        defer { server.shutdown() }

        let client = try RawClient(port: server.port)
        client.send("PRI * HTTP/2.0\r\n")
        #expect(await eventually { server.metrics.openConnections == 1 })
        client.close()

        #expect(await eventually { server.metrics.openConnections == 0 })
        #expect(handler.openedConnections == 0)
        try await Self.expectStillServing(server)
    }

    @Test(arguments: ["PRI * HTTP/2.0\r\n", ""])
    func silenceDuringDetectionHitsHandshakeTimeout(sent: String) async throws {
        let server = try TestServer(handler: RecordingHandler(), configure: Self.handshakeLimits)
        defer { server.shutdown() }

        let (bytes, closed, elapsed) = try await Self.silentExchange(server, sending: sent)

        #expect(closed)
        #expect(bytes.isEmpty)
        #expect(elapsed >= Self.handshakeTimeout - .milliseconds(50), "closed after \(elapsed), before the handshake timeout")
        try await Self.expectStillServing(server)
    }

    @Test func silentTLSClientHitsHandshakeTimeout() async throws {
        let server = try TestServer(tls: true, handler: RecordingHandler(), configure: Self.handshakeLimits)
        defer { server.shutdown() }

        let (_, closed, elapsed) = try await Self.silentExchange(server, sending: "")

        #expect(closed)
        #expect(elapsed >= Self.handshakeTimeout - .milliseconds(50), "closed after \(elapsed), before the handshake timeout")
        let reply = try await Curl.request(["--http2", "--cacert", TestCertificates.ca, server.url("/")])
        #expect(reply.status == 200)
    }

    @Test func http2HeaderListOverLimit() async throws {
        let handler = RecordingHandler()
        let server = try TestServer(handler: handler, configure: Self.smallLimits)
        defer { server.shutdown() }
        let script = #"""
client = connect(int(sys.argv[1]))
headers = lambda path: [(":method", "GET"), (":scheme", "http"), (":path", path), (":authority", "127.0.0.1")]
client.send(1, headers("/big") + [("x-big", "a" * 2000)])
client.pump(lambda c: c.ended(1))
client.report()
"""#

        let report = try await PythonH2.run(script, [String(server.port)])

        let response = try #require(report.response(1), "\(report)")
        #expect(response.status == 431)
        #expect(report.error == nil)
        #expect(report.goaways.isEmpty)
        #expect(handler.requests.isEmpty)
        try await Self.expectStillServing(server)
    }

    /// A rejected request that had already ended gets its response and nothing more: the stream is
    /// closed, so a RST_STREAM would break RFC 9113 section 5.1. One still sending gets RST_STREAM(NO_ERROR).
    @Test func http2RejectionResetsOnlyStreamsStillOpen() async throws {
        let server = try TestServer(handler: RecordingHandler(), configure: Self.smallLimits)
        defer { server.shutdown() }
        let script = #"""
client = connect(int(sys.argv[1]))
headers = lambda path, method="GET": [(":method", method), (":scheme", "http"), (":path", path), (":authority", "127.0.0.1")]
ended = lambda sid: lambda frames: any(f.stream_id == sid and "END_STREAM" in f.flags for _, f in frames)
client.send(1, headers("/big") + [("x-big", "a" * 2000)])
frames = client.read_frames(until=ended(1))
client.conn.send_headers(3, headers("/upload", "POST"))
client.conn.send_data(3, b"x" * 1500)
client.sock.sendall(client.conn.data_to_send())
frames += client.read_frames(until=ended(3))
client.send(5, headers("/after"))
frames += client.read_frames(until=ended(5))
resets = [[f.stream_id, f.error_code] for _, f in frames if f.type == 0x3]
print(json.dumps({"resets": resets, "timed_out": client.timed_out}))
"""#
        struct Output: Decodable { var resets: [[Int]]; var timed_out: Bool }

        let output = try await PythonH2.run(script, [String(server.port)], as: Output.self)

        #expect(!output.timed_out)
        #expect(output.resets == [[3, 0]])
    }

    @Test func http1HeaderListOverLimit() async throws {
        let handler = RecordingHandler()
        let server = try TestServer(handler: handler, configure: Self.smallLimits)
        defer { server.shutdown() }

        let big = String(repeating: "a", count: 2000)
        let (response, closed) = try Self.exchange(server, "GET / HTTP/1.1\r\nHost: x\r\nX-Big: \(big)\r\n\r\n")

        #expect(response.hasPrefix("HTTP/1.1 431 Request Header Fields Too Large\r\n"), "\(response)")
        #expect(closed)
        #expect(handler.requests.isEmpty)
        try await Self.expectStillServing(server)
    }

    @Test func http2BodyOverLimit() async throws {
        let handler = RecordingHandler()
        let server = try TestServer(handler: handler, configure: Self.smallLimits)
        defer { server.shutdown() }
        let script = #"""
client = connect(int(sys.argv[1]))
headers = lambda path: [(":method", "POST"), (":scheme", "http"), (":path", path), (":authority", "127.0.0.1")]
client.send(1, headers("/too-big"), body=b"x" * 2000)
client.pump(lambda c: c.ended(1))
client.send(3, headers("/small"), body=b"y" * 10)
client.pump(lambda c: c.ended(3))
client.report()
"""#

        let report = try await PythonH2.run(script, [String(server.port)])

        #expect(report.response(1)?.status == 413, "\(report)")
        // A stream error only: the same connection goes on serving.
        #expect(report.response(3)?.status == 200)
        #expect(report.response(3)?.body == "ok POST /small 10\n")
        #expect(report.error == nil)
        #expect(handler.requests.map(\.path) == ["/small"])
        try await Self.expectStillServing(server)
    }

    @Test(arguments: ["Content-Length: 2000\r\n\r\n" + String(repeating: "x", count: 2000),
                      "Transfer-Encoding: chunked\r\n\r\n7d0\r\n" + String(repeating: "x", count: 2000) + "\r\n0\r\n\r\n"])
    func http1BodyOverLimit(framing: String) async throws {
        let handler = RecordingHandler()
        let server = try TestServer(handler: handler, configure: Self.smallLimits)
        defer { server.shutdown() }

        let (response, closed) = try Self.exchange(server, "POST /too-big HTTP/1.1\r\nHost: x\r\n" + framing)

        #expect(response.hasPrefix("HTTP/1.1 413 Content Too Large\r\n"), "\(response)")
        #expect(closed)
        #expect(handler.requests.isEmpty)
        try await Self.expectStillServing(server)
    }
}
