import Foundation
import Testing
@testable import HTTPTransport

/// `shutdown(gracePeriod:)`: requests in flight finish, new connections are refused.
@Suite(.timeLimit(.minutes(1)))
struct ServerShutdownTests {
    @Test func requestsInFlightCompleteAndNewConnectionsAreRefused() async throws {
        let handler = RecordingHandler { request, responder in
            responder.respond(HTTPResponse(status: 200, text: "finished \(request.version.rawValue)"), after: .milliseconds(700))
        }
        let server = try TestServer(handler: handler)
        defer { server.shutdown() }
        let port = server.port

        async let h2 = Curl.request(["--http2-prior-knowledge", server.url("/slow")])
        async let h1 = Curl.request(["--http1.1", server.url("/slow")])
        #expect(await eventually { server.metrics.requests == 2 })

        let started = ContinuousClock.now
        let shutdown = Task.detached { await server.server.shutdown(gracePeriod: .seconds(5)) }
        let refused = await eventually(timeout: .seconds(2)) { (try? RawClient(port: port)) == nil }
        let streamsWhenRefused = server.metrics.openStreams
        let (h2Reply, h1Reply) = try await (h2, h1)
        await shutdown.value
        let took = started.duration(to: .now)

        #expect(refused)
        #expect(streamsWhenRefused == 2, "new connections must be refused while the requests are still in flight")
        #expect(h2Reply.status == 200 && h2Reply.body == "finished HTTP/2", "\(h2Reply.result.stderr)")
        #expect(h1Reply.status == 200 && h1Reply.body == "finished HTTP/1.1", "\(h1Reply.result.stderr)")
        #expect(took < .seconds(4), "shutdown waited for the whole grace period: \(took)")
        #expect(server.metrics.openConnections == 0)
        #expect((try? RawClient(port: port)) == nil)
    }

    @Test func idleConnectionsCloseAtOnceAndStuckOnesAtGracePeriod() async throws {
        let handler = RecordingHandler { _, _ in }  // Never answers.
        let server = try TestServer(handler: handler)
        defer { server.shutdown() }
        let idle = try RawClient(port: server.port)
        idle.send(H2Frame.clientStart)
        let stuck = try RawClient(port: server.port)
        stuck.send(H2Frame.clientStart + H2Frame.headers(stream: 1, path: "/never", endStream: true))
        #expect(await eventually { server.metrics.requests == 1 && server.metrics.openConnections == 2 })

        let started = ContinuousClock.now
        await server.server.shutdown(gracePeriod: .milliseconds(500))
        let took = started.duration(to: .now)

        let idleFrames = H2Frame.parse(idle.readUntilClose(timeout: .seconds(2)).bytes)
        #expect(idleFrames.contains { $0.type == H2Frame.typeGoAway })
        #expect(stuck.readUntilClose(timeout: .seconds(2)).closed)
        #expect(took >= .milliseconds(450) && took < .seconds(3), "\(took)")
        #expect(server.metrics.openConnections == 0)
        #expect(server.metrics.openStreams == 0)
    }
}
