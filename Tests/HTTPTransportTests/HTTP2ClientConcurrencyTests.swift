import Synchronization
import Testing
@testable import HTTPTransport

@Suite struct HTTP2ClientConcurrencyTests {
    /// Records, per handled request, how many requests the server was holding at that moment.
    final class InFlightRecorder: Sendable {
        private let state = Mutex<(current: Int, seen: [Int])>((0, []))
        func begin() { state.withLock { $0.current += 1; $0.seen.append($0.current) } }
        func end() { state.withLock { $0.current -= 1 } }
        var seen: [Int] { state.withLock { $0.seen } }
    }

    /// Holds each answer for a millisecond, so streams would overlap if the client ignored the limit.
    /// `/lower` sets SETTINGS_MAX_CONCURRENT_STREAMS to 1 first; `lowerOnFirst` does so on the first request.
    static func handler(recorder: InFlightRecorder, lowerOnFirst: Bool) -> ClosureHandler {
        let lowered = Atomic<Bool>(false)
        return ClosureHandler(responder: { request, responder in
            if request.path == "/lower" || (lowerOnFirst && !lowered.exchange(true, ordering: .relaxed)) {
                request.connection.setMaxConcurrentStreams(1)
            }
            recorder.begin()
            try? request.connection.eventLoop.scheduleTask(after: .milliseconds(1)) {
                recorder.end()
                responder.respond(HTTPResponse(status: 200, body: request.body))
            }
        })
    }

    /// Sends 200 requests at once and returns how many came back intact.
    static func burst(_ client: HTTP2Client) async throws -> Int {
        try await withHTTP2ClientTimeout(.seconds(60)) {
            try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        let body = Array("request \(index)".utf8)
                        let response = try await client.send(HTTPClientRequest(method: "POST", path: "/", body: body))
                        return response.status == 200 && response.body == body
                    }
                }
                var count = 0
                for try await intact in group where intact { count += 1 }
                return count
            }
        }
    }

    @Test(arguments: [false, true])
    func aLimitOfOneIsHonouredForTwoHundredConcurrentRequests(tls: Bool) async throws {
        let recorder = InFlightRecorder()
        let server = try HTTP2ClientFixtures.server(tls: tls, handler: Self.handler(recorder: recorder, lowerOnFirst: false))
        let client = try HTTP2ClientFixtures.client(for: server)
        // SETTINGS goes out before the response, so the client knows the limit once this returns.
        #expect(try await client.send(HTTPClientRequest(path: "/lower")).status == 200)
        #expect(try await Self.burst(client) == 200)
        #expect(server.metrics.acceptedConnections == 1)
        // The client queued streams itself: the server never held more than one request.
        let seen = recorder.seen
        #expect(seen.count == 201)
        #expect(seen.allSatisfy { $0 == 1 })
        #expect(client.outstandingRequests == 0)
        await client.close()
        await server.shutdown(gracePeriod: .milliseconds(200))
    }

    @Test(arguments: [false, true])
    func twoHundredConcurrentRequestsCompleteWhenTheLimitDropsToOneMidBurst(tls: Bool) async throws {
        let recorder = InFlightRecorder()
        let server = try HTTP2ClientFixtures.server(tls: tls, handler: Self.handler(recorder: recorder, lowerOnFirst: true))
        let client = try HTTP2ClientFixtures.client(for: server)
        try await client.connect()
        // Streams already in flight when the limit drops may be refused (REFUSED_STREAM);
        // the client sends those again, so every request still succeeds.
        #expect(try await Self.burst(client) == 200)
        #expect(server.metrics.acceptedConnections == 1)
        #expect(server.metrics.requests == 200)
        #expect(client.outstandingRequests == 0)
        await client.close()
        await server.shutdown(gracePeriod: .milliseconds(200))
    }
}
