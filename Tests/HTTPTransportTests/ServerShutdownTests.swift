import Foundation
import Synchronization
import Testing
@testable import HTTPTransport

/// `shutdown(gracePeriod:)`: requests in flight finish, new connections are refused.
@Suite(.timeLimit(.minutes(1)))
struct ServerShutdownTests {
    @Test func requestsInFlightCompleteAndNewConnectionsAreRefused() async throws {
        // The handler holds every request; the test answers them once shutdown is under way.
        let held = Mutex<[(HTTPResponder, HTTPVersion)]>([])
        let handler = RecordingHandler { request, responder in
            held.withLock { $0.append((responder, request.version)) }
        }
        let server = try TestServer(handler: handler)
        defer { server.shutdown() }
        let port = server.port

        async let h2 = Curl.request(["--http2-prior-knowledge", server.url("/slow")])
        async let h1 = Curl.request(["--http1.1", server.url("/slow")])
        #expect(await eventually { held.withLock { $0.count } == 2 })

        // Threads of their own, so the cooperative pool that other tests may block cannot delay them.
        let (refused, streamsWhenRefused, doneBeforeAnswers) = await onThread {
            let finished = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                // A grace period far beyond the suite's time limit: shutdown returns in time only
                // because it ends when the requests do, however slow a loaded machine is.
                server.server.shutdown(gracePeriod: .seconds(600))
                finished.signal()
            }
            var refused = false
            let deadline = ContinuousClock.now + .seconds(5)
            while !refused, ContinuousClock.now < deadline {
                refused = (try? RawClient(port: port)) == nil
                if !refused { usleep(1000) }
            }
            let streams = server.metrics.openStreams
            usleep(100_000)
            let doneBeforeAnswers = finished.wait(timeout: .now()) == .success
            for (responder, version) in held.withLock({ $0 }) {
                responder.respond(HTTPResponse(status: 200, text: "finished \(version.rawValue)"))
            }
            // A wait that succeeded above took the only signal: waiting again would hang.
            if !doneBeforeAnswers { finished.wait() }
            return (refused, streams, doneBeforeAnswers)
        }
        let (h2Reply, h1Reply) = try await (h2, h1)

        #expect(refused)
        #expect(streamsWhenRefused == 2, "new connections must be refused while the requests are still in flight")
        #expect(!doneBeforeAnswers, "shutdown must wait for the requests in flight")
        #expect(h2Reply.status == 200 && h2Reply.body == "finished HTTP/2", "\(h2Reply.result.stderr)")
        #expect(h1Reply.status == 200 && h1Reply.body == "finished HTTP/1.1", "\(h1Reply.result.stderr)")
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

        let took = await onThread {
            let started = ContinuousClock.now
            server.server.shutdown(gracePeriod: .milliseconds(500))
            return started.duration(to: .now)
        }

        let idleFrames = H2Frame.parse(idle.readUntilClose(timeout: .seconds(2)).bytes)
        #expect(idleFrames.contains { $0.type == H2Frame.typeGoAway })
        #expect(stuck.readUntilClose(timeout: .seconds(2)).closed)
        #expect(took >= .milliseconds(450), "stuck connections must get the whole grace period: \(took)")
        #expect(server.metrics.openConnections == 0)
        #expect(server.metrics.openStreams == 0)
    }
}
