import Foundation
import Synchronization
import Testing
@testable import HTTPTransport

/// `HTTPServerHandler.handleRejected`: a handler may answer a refused HTTP/2 request later,
/// through its responder, and the stream waits for that answer.
@Suite(.timeLimit(.minutes(1)))
struct ServerDeferredRejectionTests {
    /// Answers refusals from another thread, some time after the transport refused them.
    final class LateRejecting: HTTPServerHandler {
        let refusals = Mutex<[HTTPRequestRejection.Kind]>([])

        func handle(_ request: HTTPRequest, responder: HTTPResponder) {
            responder.respond(HTTPResponse(status: 200, text: "read whole"))
        }

        func handleRejected(_ request: HTTPRequest, rejection: HTTPRequestRejection, responder: HTTPResponder) {
            refusals.withLock { $0.append(rejection.kind) }
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(100)) {
                responder.respond(HTTPResponse(status: rejection.status, text: "later: \(request.path)"))
            }
        }
    }

    @Test func aRefusedStreamIsAnsweredWhenTheHandlerAnswers() async throws {
        let handler = LateRejecting()
        let server = try HTTP2ClientFixtures.server(tls: false, handler: handler) { $0.maxBodySize = 1000 }
        defer { server.shutdown(gracePeriod: .milliseconds(200)) }
        let client = try HTTP2ClientFixtures.client(for: server)

        try await withHTTP2ClientTimeout(.seconds(30)) {
            let refused = try await client.send(HTTPClientRequest(method: "POST", path: "/big", body: Array(repeating: 0x61, count: 5000)))
            #expect(refused.status == 413)
            #expect(String(decoding: refused.body, as: UTF8.self) == "later: /big")
            // The connection goes on: the refused stream was reset after its answer, not the connection.
            let next = try await client.send(HTTPClientRequest(method: "POST", path: "/small", body: Array(repeating: 0x61, count: 10)))
            #expect(next.status == 200)
        }
        #expect(handler.refusals.withLock { $0 } == [.bodyTooLarge])
        await client.close()
    }
}
