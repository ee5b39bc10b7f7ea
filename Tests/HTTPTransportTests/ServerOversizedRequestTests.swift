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

        func oversizedRequestResponse(_ request: HTTPRequest, limit: Int) -> HTTPResponse {
            HTTPResponse(status: 413, headers: ["content-type": "application/json", "x-path": request.path],
                         body: Array("{\"limit\":\(limit),\"body\":\(request.body.count)}".utf8))
        }

        func headerListTooLargeResponse(_ request: HTTPRequest, limit: Int) -> HTTPResponse {
            let names = request.headers.map { "\"\($0.name)\"" }.joined(separator: ",")
            return HTTPResponse(status: 431, headers: ["content-type": "application/json", "x-path": request.path],
                                body: Array("{\"limit\":\(limit),\"method\":\"\(request.method)\",\"kept\":[\(names)]}".utf8))
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
        #expect(big.body.contains("{\"limit\":1000,\"body\":0}"), "\(big.body)")
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
        #expect(big.body.contains(#"{"limit":1024,"method":"GET","kept":["#), "\(big.body)")
        #expect(big.body.contains(#""x-first""#) && !big.body.contains(#""x-big""#) && !big.body.contains(#""x-after""#), "\(big.body)")
        #expect(big.body.lowercased().contains("x-path: /big"))
        #expect(await eventually { server.metrics.openConnections == 0 && server.metrics.openStreams == 0 })
    }
}
