import Foundation
import Synchronization
import Testing
@testable import HTTPTransport

/// `HTTPConnection.pauseReading()`: a paused connection takes no new request until it is
/// resumed as many times, and still answers the requests it has.
@Suite(.timeLimit(.minutes(1)))
struct ServerReadPauseTests {
    /// The connection a `/pause` request came on, for the test to resume.
    final class PausingHandler: HTTPServerHandler {
        let paused = Mutex<HTTPConnection?>(nil)
        let handled = Mutex<[String]>([])

        func handle(_ request: HTTPRequest, responder: HTTPResponder) {
            handled.withLock { $0.append(request.path) }
            if request.path.hasPrefix("/pause") {
                request.connection.pauseReading()
                if request.path == "/pause-twice" { request.connection.pauseReading() }
                paused.withLock { $0 = request.connection }
            }
            responder.respond(HTTPResponse(status: 200, text: request.path))
        }
    }

    @Test(arguments: [false, true])
    func aPausedConnectionTakesNoRequestUntilResumed(tls: Bool) async throws {
        let handler = PausingHandler()
        let server = try HTTP2ClientFixtures.server(tls: tls, handler: handler)
        defer { server.shutdown(gracePeriod: .milliseconds(200)) }
        let client = try HTTP2ClientFixtures.client(for: server)

        try await withHTTP2ClientTimeout(.seconds(30)) {
            // Paused twice: one resume is not enough.
            let answer = try await client.send(HTTPClientRequest(method: "GET", path: "/pause-twice"))
            #expect(answer.status == 200)
            let later = Task { try await client.send(HTTPClientRequest(method: "GET", path: "/later")) }
            let connection = try #require(handler.paused.withLock { $0 })
            // Nothing to wait for but time: the request must not be read while paused.
            try await Task.sleep(for: .milliseconds(300))
            connection.resumeReading()
            try await Task.sleep(for: .milliseconds(300))
            #expect(handler.handled.withLock { $0 } == ["/pause-twice"])

            connection.resumeReading()
            let laterAnswer = try await later.value
            #expect(laterAnswer.status == 200)
            #expect(String(decoding: laterAnswer.body, as: UTF8.self) == "/later")
            #expect(handler.handled.withLock { $0 } == ["/pause-twice", "/later"])
        }
        await client.close()
    }

    @Test func resumingAConnectionThatIsNotPausedChangesNothing() async throws {
        let handler = PausingHandler()
        let server = try HTTP2ClientFixtures.server(tls: false, handler: handler)
        defer { server.shutdown(gracePeriod: .milliseconds(200)) }
        let client = try HTTP2ClientFixtures.client(for: server)

        try await withHTTP2ClientTimeout(.seconds(30)) {
            _ = try await client.send(HTTPClientRequest(method: "GET", path: "/pause"))
            let connection = try #require(handler.paused.withLock { $0 })
            connection.resumeReading()
            connection.resumeReading()  // One too many: ignored, not a count below zero.
            connection.pauseReading()
            let later = Task { try await client.send(HTTPClientRequest(method: "GET", path: "/later")) }
            try await Task.sleep(for: .milliseconds(300))
            #expect(handler.handled.withLock { $0 } == ["/pause"])
            connection.resumeReading()
            #expect(try await later.value.status == 200)
        }
        await client.close()
    }
}
