import Synchronization
import Testing
@testable import HTTPTransport

/// `send(_:completion:)`: the same requests as the async `send`, answered through a callback
/// on the connection's loop, exactly once, with the same errors.
@Suite struct HTTP2ClientCompletionTests {
    /// `/never` is never answered; anything else is echoed.
    static let neverOnSlash = ClosureHandler(responder: { request, responder in
        if request.path != "/never" { responder.respond(HTTPResponse(status: 200, body: request.body)) }
    })

    /// The outcome `client.send(request, completion:)` reports, and whether it ran on `loop`.
    static func callbackOutcome(
        _ client: HTTP2Client, _ request: HTTPClientRequest, loop: EventLoop
    ) async -> (Result<HTTPClientResponse, HTTPClientError>, onLoop: Bool) {
        await withCheckedContinuation { continuation in
            client.send(request) { result in continuation.resume(returning: (result, loop.inEventLoop)) }
        }
    }

    @Test func manyRequestsAreEachAnsweredOnceOnTheConnectionsLoop() async throws {
        let server = try HTTP2ClientFixtures.server(tls: true, handler: Self.neverOnSlash)
        let group = try EventLoopGroup(threads: 1)
        let client = try HTTP2Client(configuration: HTTP2ClientConfiguration(
            host: "localhost", port: server.localAddress.port, tls: .makeClientConfiguration(trustRootsPath: HTTP2ClientFixtures.ca)),
            group: group)
        let results = try await withHTTP2ClientTimeout(.seconds(20)) {
            await withTaskGroup(of: (Int, Result<HTTPClientResponse, HTTPClientError>, Bool).self) { tasks in
                for index in 0..<200 {
                    tasks.addTask {
                        let request = HTTPClientRequest(method: "POST", path: "/echo", body: [UInt8(index % 256)])
                        let (result, onLoop) = await Self.callbackOutcome(client, request, loop: group.loops[0])
                        return (index, result, onLoop)
                    }
                }
                var all: [(Int, Result<HTTPClientResponse, HTTPClientError>, Bool)] = []
                for await result in tasks { all.append(result) }
                return all
            }
        }
        #expect(results.count == 200)
        for (index, result, onLoop) in results {
            #expect((try? result.get().body) == [UInt8(index % 256)])
            #expect(onLoop, "request \(index) was answered off the connection's loop")
        }
        #expect(server.metrics.requests == 200)
        #expect(client.outstandingRequests == 0)
        await client.close()
        group.shutdown()
        await server.shutdown(gracePeriod: .milliseconds(200))
    }

    @Test func timeoutsCloseAndClosedClientsFailTheCompletion() async throws {
        let server = try HTTP2ClientFixtures.server(tls: false, handler: Self.neverOnSlash)
        let group = try EventLoopGroup(threads: 1)
        let client = try HTTP2Client(
            configuration: HTTP2ClientConfiguration(host: "127.0.0.1", port: server.localAddress.port, tls: nil), group: group)
        let loop = group.loops[0]
        let (timedOut, _) = try await withHTTP2ClientTimeout(.seconds(10)) {
            await Self.callbackOutcome(client, HTTPClientRequest(path: "/never", timeout: .milliseconds(200)), loop: loop)
        }
        #expect(timedOut == .failure(.timedOut(.request, after: .milliseconds(200))))
        #expect(await eventually { server.metrics.openStreams == 0 }, "the timed-out stream was reset")

        let pending = Task { await Self.callbackOutcome(client, HTTPClientRequest(path: "/never", timeout: nil), loop: loop) }
        #expect(await eventually { server.metrics.openStreams == 1 })
        await client.close()
        let (closed, _) = try await withHTTP2ClientTimeout(.seconds(10)) { await pending.value }
        #expect(closed == .failure(.closed))

        // A closed client answers at once, on the calling thread, before `send` returns.
        let answered = Mutex<Result<HTTPClientResponse, HTTPClientError>?>(nil)
        client.send(HTTPClientRequest(path: "/")) { result in answered.withLock { $0 = result } }
        #expect(answered.withLock { $0 } == .failure(.closed))
        group.shutdown()
        await server.shutdown(gracePeriod: .milliseconds(200))
    }
}
