import Foundation
import Testing
@testable import HTTPTransport

/// What a handler sees of a request and of the connection it came on.
@Suite(.timeLimit(.minutes(1)))
struct ServerRequestExposureTests {
    enum SeenBefore: HTTPConnectionStateKey { typealias Value = String }

    /// Answers with the per-connection state found before this request, then stores its own path.
    static func stateHandler() -> RecordingHandler {
        RecordingHandler { request, responder in
            let before = request.connection[SeenBefore.self] ?? "none"
            request.connection[SeenBefore.self] = request.path
            responder.respond(HTTPResponse(status: 200, text: "\(request.connection.id) \(before)"))
        }
    }

    @Test func http2RequestKeepsHeadersInWireOrderWithDuplicates() async throws {
        let handler = Self.stateHandler()
        let server = try TestServer(handler: handler)
        defer { server.shutdown() }
        let script = #"""
port = int(sys.argv[1])
client = connect(port)
authority = "127.0.0.1:%d" % port
client.send(1, [(":method", "POST"), (":scheme", "http"), (":path", "/first?q=1"), (":authority", authority),
                ("x-dup", "one"), ("content-type", "application/json"), ("x-dup", "two"), ("apns-topic", "com.example.app")],
            body=b'{"aps":{}}')
client.pump(lambda c: c.ended(1))
client.send(3, [(":method", "GET"), (":scheme", "http"), (":path", "/second"), (":authority", authority)])
client.pump(lambda c: c.ended(3))
client.report()
"""#

        let report = try await PythonH2.run(script, [String(server.port)])

        let requests = handler.requests
        try #require(requests.count == 2)
        let first = requests[0]
        #expect(first.method == "POST")
        #expect(first.path == "/first?q=1")
        #expect(first.authority == "127.0.0.1:\(server.port)")
        #expect(first.scheme == "http")
        #expect(first.version == .http2)
        #expect(first.streamID == 1)
        #expect(first.body == Array(#"{"aps":{}}"#.utf8))
        #expect(first.headers.fields.map { [$0.name, $0.value] } == [
            ["x-dup", "one"], ["content-type", "application/json"], ["x-dup", "two"], ["apns-topic", "com.example.app"],
        ])
        #expect(first.headers.values(for: "x-dup") == ["one", "two"])
        // Same connection: same id, and the state the first request stored is visible to the second.
        let second = requests[1]
        #expect(second.connection.id == first.connection.id)
        #expect(second.connection === first.connection)
        #expect(report.response(1)?.body == "\(first.connection.id) none")
        #expect(report.response(3)?.body == "\(first.connection.id) /first?q=1")
        #expect(second.connection[SeenBefore.self] == "/second")
    }

    @Test func secondConnectionHasNewIdentityAndNoState() async throws {
        let handler = Self.stateHandler()
        let server = try TestServer(handler: handler)
        defer { server.shutdown() }

        let script = #"""
port = int(sys.argv[1])
headers = lambda path: [(":method", "GET"), (":scheme", "http"), (":path", path), (":authority", "127.0.0.1")]
one = connect(port)
one.send(1, headers("/a"))
one.pump(lambda c: c.ended(1))
one.send(3, headers("/b"))
one.pump(lambda c: c.ended(3))
two = connect(port)
two.send(1, headers("/c"))
two.pump(lambda c: c.ended(1))
print(json.dumps({"one": [one.responses()[1]["body"], one.responses()[3]["body"]], "two": two.responses()[1]["body"]}))
"""#
        struct Bodies: Decodable { var one: [String]; var two: String }

        let bodies = try await PythonH2.run(script, [String(server.port)], as: Bodies.self)

        let requests = handler.requests
        try #require(requests.count == 3)
        #expect(requests[0].connection.id == requests[1].connection.id)
        #expect(requests[2].connection.id != requests[0].connection.id)
        #expect(requests[2].connection !== requests[0].connection)
        #expect(bodies.one == ["\(requests[0].connection.id) none", "\(requests[0].connection.id) /a"])
        #expect(bodies.two == "\(requests[2].connection.id) none")
        #expect(requests[0].connection[SeenBefore.self] == "/b")
        #expect(requests[2].connection[SeenBefore.self] == "/c")
    }

    @Test func http1RequestKeepsHeaderCaseOrderAndDuplicates() async throws {
        let handler = Self.stateHandler()
        let server = try TestServer(handler: handler)
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)

        client.send("PUT /h1/path?x=y HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nX-Dup: one\r\nX-Other: mid\r\n"
            + "x-dup: two\r\nContent-Length: 5\r\n\r\nhello")
        let first = client.read { $0.text.hasSuffix(" none") }
        client.send("GET /again HTTP/1.1\r\nHost: h\r\n\r\n")
        let second = client.read { $0.text.hasSuffix("/h1/path?x=y") }

        #expect(first.text.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(second.text.hasPrefix("HTTP/1.1 200 OK\r\n"))
        let requests = handler.requests
        try #require(requests.count == 2)
        let request = requests[0]
        #expect(request.method == "PUT")
        #expect(request.path == "/h1/path?x=y")
        #expect(request.authority == "127.0.0.1:\(server.port)")
        #expect(request.version == .http1_1)
        #expect(request.body == Array("hello".utf8))
        #expect(request.headers.fields.map { [$0.name, $0.value] } == [
            ["Host", "127.0.0.1:\(server.port)"], ["X-Dup", "one"], ["X-Other", "mid"], ["x-dup", "two"], ["Content-Length", "5"],
        ])
        #expect(request.headers.values(for: "x-dup") == ["one", "two"])
        #expect(requests[1].connection.id == request.connection.id)
        #expect(requests[1].authority == "h")
    }
}
