import Testing
@testable import HTTPTransport

@Suite struct HTTP2ClientTimeoutTests {
    /// `/never` is never answered; anything else is echoed.
    static func handler(seen: HTTP2ClientPathCounter) -> ClosureHandler {
        ClosureHandler(responder: { request, responder in
            seen.record(request.path)
            if request.path != "/never" {
                responder.respond(HTTPResponse(status: 200, body: request.body))
            }
        })
    }

    @Test func aRequestThatIsNeverAnsweredTimesOutAndTheOthersSucceed() async throws {
        let seen = HTTP2ClientPathCounter()
        let server = try HTTP2ClientFixtures.server(tls: true, handler: Self.handler(seen: seen))
        let client = try HTTP2ClientFixtures.client(for: server)
        try await withHTTP2ClientTimeout(.seconds(10)) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    let started = ContinuousClock.now
                    let result = await outcome(of: client, HTTPClientRequest(path: "/never", timeout: .milliseconds(300)))
                    #expect(result == .failure(.timedOut(.request, after: .milliseconds(300))))
                    #expect(ContinuousClock.now - started >= .milliseconds(300))
                }
                for index in 0..<50 {
                    group.addTask {
                        let response = try await client.send(HTTPClientRequest(method: "POST", path: "/echo", body: [UInt8(index)]))
                        #expect(response.body == [UInt8(index)])
                    }
                }
                try await group.waitForAll()
            }
        }
        // The timed-out stream was reset with CANCEL, so the server let go of it.
        #expect(await eventually { server.metrics.openStreams == 0 })
        // The connection is still good after the timeout.
        let after = try await client.send(HTTPClientRequest(path: "/after"))
        #expect(after.status == 200)
        #expect(client.isActive)
        #expect(server.metrics.acceptedConnections == 1)
        #expect(client.outstandingRequests == 0)
        let description = HTTPClientError.timedOut(.request, after: .milliseconds(300)).description
        #expect(description.contains("timed out") && description.contains("CANCEL"))
        await client.close()
        await server.shutdown(gracePeriod: .milliseconds(200))
    }

    @Test func theConfiguredDefaultTimeoutAppliesToRequestsWithoutTheirOwn() async throws {
        let seen = HTTP2ClientPathCounter()
        let server = try HTTP2ClientFixtures.server(tls: false, handler: Self.handler(seen: seen))
        let client = try HTTP2ClientFixtures.client(for: server) { $0.requestTimeout = .milliseconds(200) }
        let result = try await withHTTP2ClientTimeout(.seconds(5)) {
            await outcome(of: client, HTTPClientRequest(path: "/never"))
        }
        #expect(result == .failure(.timedOut(.request, after: .milliseconds(200))))
        // A request's own timeout wins over the default.
        let patient = try await withHTTP2ClientTimeout(.seconds(5)) {
            await outcome(of: client, HTTPClientRequest(path: "/never", timeout: .milliseconds(400)))
        }
        #expect(patient == .failure(.timedOut(.request, after: .milliseconds(400))))
        // Its own timeout: a loaded machine may take longer than the short default to answer.
        #expect(try await client.send(HTTPClientRequest(path: "/ok", timeout: .seconds(30))).status == 200)
        await client.close()
        await server.shutdown(gracePeriod: .milliseconds(200))
    }

    /// Requests on the default timeout share one timer: each still times out at its own
    /// deadline, the timer moving on to the next, and answered ones in between are unaffected.
    @Test func requestsOnTheDefaultTimeoutEachTimeOutAtTheirOwnDeadline() async throws {
        let seen = HTTP2ClientPathCounter()
        let server = try HTTP2ClientFixtures.server(tls: false, handler: Self.handler(seen: seen))
        // Seconds, not milliseconds: every echo below is on this timeout too, and must be
        // answered within it on a loaded machine.
        let timeout = Duration.seconds(10)
        let client = try HTTP2ClientFixtures.client(for: server) { $0.requestTimeout = timeout }
        try await client.connect()
        try await withHTTP2ClientTimeout(.seconds(120)) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                // The second starts before the first times out, the third after it did.
                for delay in [Duration.zero, timeout / 2, timeout * 3 / 2] {
                    group.addTask {
                        try await Task.sleep(for: delay)
                        let started = ContinuousClock.now
                        let result = await outcome(of: client, HTTPClientRequest(path: "/never"))
                        #expect(result == .failure(.timedOut(.request, after: timeout)), "sent after \(delay)")
                        #expect(ContinuousClock.now - started >= timeout)
                    }
                }
                // Spread over the three deadlines.
                for index in 0..<60 {
                    group.addTask {
                        try await Task.sleep(for: timeout * 2 / 60 * index)
                        let response = try await client.send(HTTPClientRequest(method: "POST", path: "/echo", body: [UInt8(index)]))
                        #expect(response.body == [UInt8(index)])
                    }
                }
                try await group.waitForAll()
            }
        }
        #expect(await eventually { server.metrics.openStreams == 0 }, "each timed-out stream was reset")
        #expect(client.outstandingRequests == 0)
        await client.close()
        await server.shutdown(gracePeriod: .milliseconds(200))
    }
}
