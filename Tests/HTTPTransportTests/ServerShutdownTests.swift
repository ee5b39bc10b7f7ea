import Foundation
import Synchronization
import Testing
@testable import HTTPTransport

/// `shutdown(gracePeriod:)`: requests in flight finish, new connections are refused.
@Suite(.timeLimit(.minutes(1)))
struct ServerShutdownTests {
    @Test func requestsInFlightCompleteAndNewConnectionsAreRefused() async throws {
        let handler = RecordingHandler { request, responder in
            responder.respond(HTTPResponse(status: 200, text: "finished \(request.version.rawValue)"), after: .milliseconds(1000))
        }
        let server = try TestServer(handler: handler)
        defer { server.shutdown() }
        let port = server.port

        async let h2 = Curl.request(["--http2-prior-knowledge", server.url("/slow")])
        async let h1 = Curl.request(["--http1.1", server.url("/slow")])
        #expect(await eventually { server.metrics.requests == 2 })

        // Both threads start at once, outside the cooperative pool that other tests may be blocking.
        let (refused, streamsWhenRefused, shutdownTook) = await onThread {
            let finished = DispatchSemaphore(value: 0)
            let took = Mutex<Duration>(.zero)
            let started = ContinuousClock.now
            Thread.detachNewThread {
                server.server.shutdown(gracePeriod: .seconds(5))
                took.withLock { $0 = started.duration(to: .now) }
                finished.signal()
            }
            // Probe until a connection is refused, and note how many requests were still in flight then.
            var refused = false
            let deadline = ContinuousClock.now + .seconds(2)
            while !refused, ContinuousClock.now < deadline {
                refused = (try? RawClient(port: port)) == nil
                if !refused { usleep(1000) }
            }
            let streams = server.metrics.openStreams
            finished.wait()
            return (refused, streams, took.withLock { $0 })
        }
        let (h2Reply, h1Reply) = try await (h2, h1)

        #expect(refused)
        #expect(streamsWhenRefused == 2, "new connections must be refused while the requests are still in flight")
        #expect(h2Reply.status == 200 && h2Reply.body == "finished HTTP/2", "\(h2Reply.result.stderr)")
        #expect(h1Reply.status == 200 && h1Reply.body == "finished HTTP/1.1", "\(h1Reply.result.stderr)")
        #expect(shutdownTook < .seconds(4), "shutdown waited for the whole grace period: \(shutdownTook)")
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
