import Foundation
import Testing
@testable import HTTPTransport

/// Slow clients (slowloris): a request that does not arrive whole within `requestReadTimeout`
/// of its first byte is answered 408 and stops holding its connection or stream, however it
/// drips; a request that has arrived whole waits for its answer as long as the handler takes.
///
/// The idle timeout stays at its 300 s default, so only the read deadline can end these
/// connections; every wait is a generous hang guard, not a measurement.
@Suite(.timeLimit(.minutes(1)))
struct ServerRequestReadTimeoutTests {
    static let deadline = Duration.milliseconds(300)
    /// Well past the deadline: a handler this slow must still be waited for.
    static let slowAnswer = Duration.milliseconds(1200)

    /// Answers `/slow` after `slowAnswer`, anything else at once.
    static func handler() -> RecordingHandler {
        RecordingHandler { request, responder in
            if request.path == "/slow" {
                responder.respond(HTTPResponse(status: 200, text: "worth the wait"), after: slowAnswer)
            } else {
                responder.respond(RecordingHandler.defaultResponse(request))
            }
        }
    }

    static func server(_ handler: RecordingHandler) throws -> TestServer {
        try TestServer(handler: handler) { $0.requestReadTimeout = deadline }
    }

    @Test(arguments: [
        "PO",
        "POST /push HTTP/1.1\r\nHost: x\r\n",
        "POST /push HTTP/1.1\r\nHost: x\r\ncontent-length: 400\r\n\r\n{\"a\"",
        "POST /push HTTP/1.1\r\nHost: x\r\ntransfer-encoding: chunked\r\n\r\n5\r\n{\"a\":\r\n",
    ])
    func http1IncompleteRequestGets408ThenClose(sent: String) async throws {
        let handler = Self.handler()
        let server = try Self.server(handler)
        defer { server.shutdown() }

        let client = try RawClient(port: server.port)
        client.send(sent)
        let (bytes, closed) = client.readUntilClose(timeout: .seconds(15))

        #expect(bytes.text.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"), "\(bytes.text)")
        #expect(bytes.text.contains("connection: close\r\n"))
        #expect(bytes.text.hasSuffix("request not complete within 300 ms of its start\n"), "\(bytes.text)")
        #expect(closed)
        #expect(handler.requests.isEmpty)
        #expect(server.metrics.timedOutRequests == 1)
        #expect(await eventually { server.metrics.openConnections == 0 && server.metrics.openStreams == 0 }, "\(server.metrics)")
    }

    /// A byte every 50 ms keeps the connection busy but does not move the deadline, which
    /// counts from the request's first byte.
    @Test(arguments: ["POST /push HTTP/1.1\r\nx-drip: ", "POST /push HTTP/1.1\r\ncontent-length: 100000\r\n\r\n"])
    func http1DripDoesNotPostponeTheDeadline(start: String) async throws {
        let handler = Self.handler()
        let server = try Self.server(handler)
        defer { server.shutdown() }

        let client = try RawClient(port: server.port)
        client.send(start)
        var reply: [UInt8] = []
        let guardDeadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < guardDeadline {
            client.send("a")
            guard let chunk = client.read(timeout: .milliseconds(50)) else { continue }
            reply += chunk
            if chunk.isEmpty || reply.text.contains("\r\n\r\n") { break }
        }
        #expect(reply.text.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"), "answered while the client still dripped: \(reply.text)")
        let (rest, closed) = client.readUntilClose(timeout: .seconds(5))
        reply += rest

        #expect(closed)
        #expect(handler.requests.isEmpty)
        #expect(server.metrics.timedOutRequests == 1)
    }

    /// Empty lines before a request line (which RFC 9112 lets a server skip) start the clock
    /// too, so they cannot hold a connection; with no request begun there is nothing to answer.
    @Test func http1EmptyLinesOnlyAreClosedWithoutAnswer() async throws {
        let server = try Self.server(Self.handler())
        defer { server.shutdown() }

        let client = try RawClient(port: server.port)
        client.send("\r\n")
        let (bytes, closed) = client.readUntilClose(timeout: .seconds(15))

        #expect(bytes.isEmpty, "\(bytes.text)")
        #expect(closed)
        #expect(server.metrics.timedOutRequests == 0)
    }

    /// Requests read whole are the handler's, however long it takes; a pipelined request
    /// behind a slow one gets its own full deadline once the server starts reading it.
    @Test func http1RequestWaitingOnSlowHandlerIsNotCut() async throws {
        let handler = Self.handler()
        let server = try Self.server(handler)
        defer { server.shutdown() }

        let client = try RawClient(port: server.port)
        client.send("POST /slow HTTP/1.1\r\nHost: x\r\ncontent-length: 2\r\n\r\n{}GET /after HTTP/1.1\r\nHost: x\r\n\r\n")
        let reply = client.read(until: { $0.text.contains("ok GET /after 0\n") }, timeout: .seconds(15))

        #expect(reply.text.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(reply.text)")
        #expect(reply.text.contains("worth the wait"), "\(reply.text)")
        #expect(reply.text.contains("ok GET /after 0\n"), "\(reply.text)")
        #expect(server.metrics.timedOutRequests == 0)
        #expect(handler.requests.map(\.path) == ["/slow", "/after"])
    }

    /// On HTTP/2 a stalled stream is answered 408 and reset (NO_ERROR), however its body
    /// drips, and the connection gets GOAWAY; a complete stream on it waiting for a slow
    /// handler is still answered, and then the connection closes.
    @Test func http2StreamWithIncompleteBodyIs408AndResetWhileSlowStreamIsAnswered() async throws {
        let handler = Self.handler()
        let server = try Self.server(handler)
        defer { server.shutdown() }

        let client = try RawClient(port: server.port)
        client.send(H2Frame.clientStart
            + H2Frame.headers(stream: 1, path: "/stalled", method: "POST", endStream: false)
            + H2Frame.data(stream: 1, Array(#"{"a""#.utf8), endStream: false)
            + H2Frame.headers(stream: 3, path: "/slow", method: "POST", endStream: false)
            + H2Frame.data(stream: 3, Array("{}".utf8), endStream: true))
        var reply: [UInt8] = []
        let guardDeadline = ContinuousClock.now + .seconds(15)
        func streamOneEnded() -> Bool {
            H2Frame.parse(reply).contains { $0.stream == 1 && $0.type == ServerHostileClientTests.typeRstStream }
        }
        while ContinuousClock.now < guardDeadline, !streamOneEnded() {
            client.send(H2Frame.data(stream: 1, [UInt8(ascii: "a")], endStream: false))
            guard let chunk = client.read(timeout: .milliseconds(50)) else { continue }
            if chunk.isEmpty { break }
            reply += chunk
        }
        #expect(streamOneEnded(), "answered while the client still dripped")
        let (rest, closed) = client.readUntilClose(timeout: .seconds(15))
        reply += rest
        let frames = H2Frame.parse(reply)

        let stalledBody = frames.filter { $0.stream == 1 && $0.type == H2Frame.typeData }.flatMap(\.payload)
        #expect(stalledBody.text == "request not complete within 300 ms of its start\n", "\(frames.map { ($0.type, $0.stream) })")
        let reset = try #require(frames.first { $0.stream == 1 && $0.type == ServerHostileClientTests.typeRstStream })
        #expect(reset.payload == [0, 0, 0, 0], "NO_ERROR: the stream was answered")
        #expect(frames.contains { $0.type == H2Frame.typeGoAway })
        let slowBody = frames.filter { $0.stream == 3 && $0.type == H2Frame.typeData }
        #expect(slowBody.flatMap(\.payload).text == "worth the wait")
        #expect(slowBody.last.map { $0.flags & H2Frame.flagEndStream != 0 } == true)
        #expect(closed, "after GOAWAY and its last stream the connection closes")
        #expect(handler.requests.map(\.path) == ["/slow"])
        #expect(server.metrics.timedOutRequests == 1)
        #expect(await eventually { server.metrics.openConnections == 0 && server.metrics.openStreams == 0 }, "\(server.metrics)")
    }

    /// A header block left open (HEADERS without END_HEADERS, no CONTINUATION) blocks the
    /// whole connection; its stream times out like any other and the connection ends.
    @Test func http2UnfinishedHeaderBlockTimesOut() async throws {
        let handler = Self.handler()
        let server = try Self.server(handler)
        defer { server.shutdown() }

        let client = try RawClient(port: server.port)
        client.send(H2Frame.clientStart + H2Frame.frame(
            type: H2Frame.typeHeaders, flags: 0, stream: 1, payload: H2Frame.requestBlock(method: "POST", path: "/stalled")))
        let (bytes, closed) = client.readUntilClose(timeout: .seconds(15))

        #expect(closed)
        #expect(H2Frame.parse(bytes).contains { $0.type == H2Frame.typeGoAway })
        #expect(handler.requests.isEmpty)
        #expect(server.metrics.timedOutRequests == 1)
        #expect(await eventually { server.metrics.openConnections == 0 && server.metrics.openStreams == 0 }, "\(server.metrics)")
    }
}
