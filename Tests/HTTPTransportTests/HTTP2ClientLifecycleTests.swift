import Synchronization
import Testing
@testable import HTTPTransport

@Suite struct HTTP2ClientLifecycleTests {
    static let neverOnSlash = ClosureHandler(responder: { request, responder in
        if request.path != "/never" { responder.respond(HTTPResponse(status: 200, body: request.body)) }
    })

    @Test func theFirstSendConnectsLazilyAndStateFollowsTheConnection() async throws {
        let server = try HTTP2ClientFixtures.server(tls: false, handler: Self.neverOnSlash)
        let client = try HTTP2ClientFixtures.client(for: server)
        #expect(client.state == .idle)
        #expect(!client.isActive)
        let response = try await client.send(HTTPClientRequest(method: "PUT", path: "/x", headers: ["X-Upper": "v"], body: [1, 2, 3]))
        #expect(response.status == 200)
        #expect(response.body == [1, 2, 3])
        #expect(response.streamID == 1)
        #expect(client.isActive)
        try await client.connect()  // already connected: returns at once
        #expect(server.metrics.acceptedConnections == 1)
        await client.close()
        #expect(client.state == .closed)
        await server.shutdown(gracePeriod: .milliseconds(200))
    }

    @Test func cancellingTheCallingTaskFailsTheRequestAndResetsItsStream() async throws {
        let server = try HTTP2ClientFixtures.server(tls: false, handler: Self.neverOnSlash)
        let client = try HTTP2ClientFixtures.client(for: server)
        try await client.connect()
        let task = Task { await outcome(of: client, HTTPClientRequest(path: "/never", timeout: nil)) }
        #expect(await eventually { server.metrics.openStreams == 1 })
        task.cancel()
        let result = try await withHTTP2ClientTimeout(.seconds(5)) { await task.value }
        #expect(result == .failure(.cancelled))
        #expect(await eventually { server.metrics.openStreams == 0 })
        // A task cancelled before it sends never reaches the server.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await outcome(of: client, HTTPClientRequest(path: "/never"))
        }
        #expect(await early.value == .failure(.cancelled))
        #expect(try await client.send(HTTPClientRequest(path: "/ok")).status == 200)
        #expect(server.metrics.requests == 2)
        #expect(client.outstandingRequests == 0)
        await client.close()
        await server.shutdown(gracePeriod: .milliseconds(200))
    }

    @Test func closeFailsPendingRequestsAndLaterSendsFailAtOnce() async throws {
        let server = try HTTP2ClientFixtures.server(tls: true, handler: Self.neverOnSlash)
        let client = try HTTP2ClientFixtures.client(for: server)
        try await client.connect()
        let results = try await withHTTP2ClientTimeout(.seconds(10)) {
            await withTaskGroup(of: Result<HTTPClientResponse, HTTPClientError>.self) { group in
                for _ in 0..<25 { group.addTask { await outcome(of: client, HTTPClientRequest(path: "/never")) } }
                #expect(await eventually { server.metrics.openStreams == 25 })
                await client.close()
                var results: [Result<HTTPClientResponse, HTTPClientError>] = []
                for await result in group { results.append(result) }
                return results
            }
        }
        #expect(results.count == 25)
        #expect(results.allSatisfy { $0 == .failure(.closed) })
        #expect(await outcome(of: client, HTTPClientRequest(path: "/")) == .failure(.closed))
        await #expect(throws: HTTPClientError.closed) { try await client.connect() }
        // The client said GOAWAY and closed: the server let go of every stream.
        #expect(await eventually { server.metrics.openConnections == 0 && server.metrics.openStreams == 0 })
        await client.close()  // a second close does nothing
        await server.shutdown(gracePeriod: .milliseconds(200))
    }

    /// Answers, times out, cancels and closes race each other; every caller must be resumed
    /// exactly once (a double resume traps, a leak hangs past the time limit).
    @Test func everyRequestIsAnsweredExactlyOnceUnderRacingOutcomes() async throws {
        let server = try HTTP2ClientFixtures.server(tls: false, handler: ClosureHandler(responder: { request, responder in
            switch request.path {
            case "/never": break
            case "/slow": responder.respond(HTTPResponse(status: 200), after: .milliseconds(Int64(request.body.first ?? 0)))
            default: responder.respond(HTTPResponse(status: 200))
            }
        }))
        let client = try HTTP2ClientFixtures.client(for: server)
        let outcomes = HTTP2ClientPathCounter()
        try await withHTTP2ClientTimeout(.seconds(20)) {
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<600 {
                    let request: HTTPClientRequest
                    switch index % 4 {
                    case 0: request = HTTPClientRequest(path: "/")
                    case 1: request = HTTPClientRequest(path: "/never", timeout: .milliseconds(Int64(index % 50)))
                    case 2: request = HTTPClientRequest(path: "/slow", body: [UInt8(index % 40)])
                    default: request = HTTPClientRequest(path: "/never", timeout: nil)
                    }
                    let task = Task {
                        let result = await outcome(of: client, request)
                        switch result {
                        case .success: outcomes.record("answered")
                        case .failure(.timedOut): outcomes.record("timed out")
                        case .failure(.cancelled): outcomes.record("cancelled")
                        case .failure(.closed): outcomes.record("closed")
                        case .failure: outcomes.record("other")
                        }
                    }
                    if index % 4 == 3 { group.addTask { try? await Task.sleep(for: .milliseconds(index % 30)); task.cancel() } }
                    group.addTask { await task.value }
                }
                group.addTask {
                    // Close while requests are still racing, but only once an answer and a
                    // timeout have happened: a fixed delay may see neither on a loaded machine.
                    let deadline = ContinuousClock.now + .seconds(10)
                    while outcomes.count("answered") == 0 || outcomes.count("timed out") == 0, ContinuousClock.now < deadline {
                        try? await Task.sleep(for: .milliseconds(1))
                    }
                    await client.close()
                }
            }
        }
        let kinds = ["answered", "timed out", "cancelled", "closed", "other"]
        #expect(kinds.map { outcomes.count($0) }.reduce(0, +) == 600)
        #expect(outcomes.count("other") == 0)
        #expect(outcomes.count("answered") > 0)
        #expect(outcomes.count("timed out") > 0)
        #expect(client.outstandingRequests == 0)
        #expect(client.state == .closed)
        await server.shutdown(gracePeriod: .milliseconds(200))
    }
}
