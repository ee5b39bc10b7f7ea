import Foundation
import Testing
@testable import HTTPTransport

/// A handler decides how a too-large body or header list is answered (APNs answers in JSON,
/// not text).
@Suite(.timeLimit(.minutes(1)))
struct ServerOversizedRequestTests {
    struct JSONRejecting: HTTPServerHandler {
        func handle(_ request: HTTPRequest, responder: HTTPResponder) {
            responder.respond(HTTPResponse(status: 200, text: "ok"))
        }

        func rejectedRequestResponse(_ request: HTTPRequest, rejection: HTTPRequestRejection) -> HTTPResponse {
            let names = request.headers.map { "\"\($0.name)\"" }.joined(separator: ",")
            let limit = rejection.limit.map(String.init) ?? "null"
            return HTTPResponse(
                status: rejection.status, headers: ["content-type": "application/json", "x-path": request.path],
                body: Array(#"{"kind":"\#(rejection.kind)","limit":\#(limit),"method":"\#(request.method)","body":\#(request.body.count),"kept":[\#(names)]}"#.utf8))
        }
    }

    @Test(arguments: ["--http2-prior-knowledge", "--http1.1"])
    func theHandlerAnswersABodyOverTheLimit(protocolFlag: String) async throws {
        let server = try TestServer(handler: JSONRejecting()) { $0.maxBodySize = 1000 }
        defer { server.shutdown() }

        let reply = try await Curl.request([protocolFlag, "-D", "-", "--data-binary", String(repeating: "x", count: 500), server.url("/small")])
        #expect(reply.status == 200)
        let big = try await Curl.request([protocolFlag, "-D", "-", "-H", "content-type: application/octet-stream",
                                          "--data-binary", String(repeating: "x", count: 5000), server.url("/big")])
        #expect(big.status == 413, "\(big.result.stderr)")
        #expect(big.body.contains(#"{"kind":"bodyTooLarge","limit":1000,"method":"POST","body":0,"#), "\(big.body)")
        #expect(big.body.lowercased().contains("x-path: /big"))
        #expect(await eventually { server.metrics.openConnections == 0 && server.metrics.openStreams == 0 })
    }

    /// The handler gets the method, the path and the headers that fit within the limit (the
    /// field that crossed it, and any after it, are dropped), and nothing reaches `handle`.
    @Test(arguments: ["--http2-prior-knowledge", "--http1.1"])
    func theHandlerAnswersAHeaderListOverTheLimit(protocolFlag: String) async throws {
        let server = try TestServer(handler: JSONRejecting()) { $0.maxHeaderListSize = 1024 }
        defer { server.shutdown() }

        let big = try await Curl.request([protocolFlag, "-D", "-", "-H", "x-first: 1", "-H", "x-big: " + String(repeating: "a", count: 2000),
                                          "-H", "x-after: 2", server.url("/big")])

        #expect(big.status == 431, "\(big.result.stderr)")
        #expect(big.body.contains(#"{"kind":"headerListTooLarge","limit":1024,"method":"GET","body":0,"kept":["#), "\(big.body)")
        #expect(big.body.contains(#""x-first""#) && !big.body.contains(#""x-big""#) && !big.body.contains(#""x-after""#), "\(big.body)")
        #expect(big.body.lowercased().contains("x-path: /big"))
        #expect(await eventually { server.metrics.openConnections == 0 && server.metrics.openStreams == 0 })
    }

    /// Malformed HTTP/1.1 and an unsupported version reach the same hook, with the status
    /// the transport chose and what was read; the connection closes after the answer.
    @Test(arguments: [("G@T / HTTP/1.1\r\nHost: x\r\n\r\n", 400, #""kind":"malformed","limit":null,"method":"""#),
                      ("GET /v HTTP/1.9\r\nHost: x\r\n\r\n", 505, #""kind":"versionNotSupported","limit":null,"method":"GET""#)])
    func theHandlerAnswersMalformedHTTP1(request: String, status: Int, expected: String) async throws {
        let server = try TestServer(handler: JSONRejecting())
        defer { server.shutdown() }

        let client = try RawClient(port: server.port)
        client.send(request)
        let (bytes, closed) = client.readUntilClose(timeout: .seconds(10))

        #expect(bytes.text.hasPrefix("HTTP/1.1 \(status) "), "\(bytes.text)")
        #expect(bytes.text.contains("content-type: application/json\r\n"), "\(bytes.text)")
        #expect(bytes.text.contains(expected), "\(bytes.text)")
        #expect(closed)
        #expect(server.metrics.requests == 0)
    }

    /// A request that fails after a complete one on the same connection is not shown the
    /// earlier request's path and headers.
    @Test func aMalformedSecondRequestShowsNothingOfTheFirst() async throws {
        let server = try TestServer(handler: JSONRejecting())
        defer { server.shutdown() }

        let client = try RawClient(port: server.port)
        client.send("GET /first HTTP/1.1\r\nHost: x\r\nx-first: 1\r\n\r\n\u{01}garbage\r\n\r\n")
        let (bytes, closed) = client.readUntilClose(timeout: .seconds(10))

        #expect(bytes.text.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(bytes.text)")
        #expect(bytes.text.contains(#"{"kind":"malformed","limit":null,"method":"","body":0,"kept":[]}"#), "\(bytes.text)")
        #expect(!bytes.text.contains("x-path: /first"), "\(bytes.text)")
        #expect(closed)
    }
}
