import Foundation
import Testing
@testable import HTTPTransport

/// Shutdown leaves no request hanging: GOAWAY carries the configured debug data, and a
/// request the handler has not answered when the grace period ends gets the handler's
/// answer to `.shuttingDown` (503) instead of a closed connection.
@Suite(.timeLimit(.minutes(1)))
struct ServerShutdownAnswersTests {
    @Test func aRequestUnansweredAtTheEndOfTheGracePeriodGets503AndTheGOAWAYSaysWhy() async throws {
        let server = try HTTP2ClientFixtures.server(tls: true, handler: HTTP2ClientLifecycleTests.neverOnSlash) {
            $0.shutdownGoAwayDebugData = Array("going down".utf8)
        }
        let client = try HTTP2ClientFixtures.client(for: server)
        try await client.connect()
        let inFlight = Task { await outcome(of: client, HTTPClientRequest(path: "/never", timeout: nil)) }
        #expect(await eventually { server.metrics.openStreams == 1 })

        await server.shutdown(gracePeriod: .milliseconds(300))
        let result = try await withHTTP2ClientTimeout(.seconds(20)) { await inFlight.value }

        let response = try result.get()
        #expect(response.status == 503)
        #expect(String(decoding: response.body, as: UTF8.self) == "the server shut down before answering\n")
        #expect(client.lastGoAway?.debugData == Array("going down".utf8))
        await client.close()
    }
}
