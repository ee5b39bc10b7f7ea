import Testing
@testable import HTTPTransport

@Suite struct HTTP2ClientConnectionLossTests {
    @Test(arguments: [false, true])
    func everyPendingRequestFailsWhenTheServerClosesTheConnection(tls: Bool) async throws {
        let seen = HTTP2ClientPathCounter()
        let server = try HTTP2ClientFixtures.server(tls: tls, handler: ClosureHandler(responder: { request, responder in
            seen.record(request.path)
            switch request.path {
            case "/close": request.connection.close()
            default: responder.respond(HTTPResponse(status: 200, text: "late"), after: .seconds(30))
            }
        }))
        let client = try HTTP2ClientFixtures.client(for: server)
        let failures = try await withHTTP2ClientTimeout(.seconds(10)) {
            await withTaskGroup(of: Result<HTTPClientResponse, HTTPClientError>.self) { group in
                for _ in 0..<20 { group.addTask { await outcome(of: client, HTTPClientRequest(path: "/pending")) } }
                #expect(await eventually { seen.count("/pending") == 20 })
                group.addTask { await outcome(of: client, HTTPClientRequest(path: "/close")) }
                var failures: [HTTPClientError] = []
                for await result in group {
                    if case let .failure(error) = result { failures.append(error) }
                }
                return failures
            }
        }
        #expect(failures.count == 21)
        for failure in failures {
            guard case .connectionClosed = failure else {
                Issue.record("expected connectionClosed, got \(failure)")
                continue
            }
            #expect(!failure.isRetryable)
            #expect(failure.description.contains("may or may not have processed"))
        }
        #expect(client.state == .closed)
        #expect(!client.isActive)
        #expect(client.lastGoAway == nil)
        // No silent hang afterwards: new requests fail at once.
        let later = await outcome(of: client, HTTPClientRequest(path: "/later"))
        guard case .failure(.connectionClosed) = later else {
            Issue.record("expected connectionClosed for a later request, got \(later)")
            return
        }
        #expect(seen.count("/later") == 0)
        #expect(client.outstandingRequests == 0)
        await client.close()
        await server.shutdown(gracePeriod: .milliseconds(200))
    }

    /// Requests the handler has not answered when the shutdown's grace period ends are
    /// answered 503 by the transport, never cut off with the connection.
    @Test func closingTheServerAnswersPendingRequests503() async throws {
        let seen = HTTP2ClientPathCounter()
        let server = try HTTP2ClientFixtures.server(tls: false, handler: ClosureHandler(responder: { request, responder in
            seen.record(request.path)
            responder.respond(HTTPResponse(status: 200), after: .seconds(30))
        }))
        let client = try HTTP2ClientFixtures.client(for: server)
        let results = try await withHTTP2ClientTimeout(.seconds(15)) {
            await withTaskGroup(of: Result<HTTPClientResponse, HTTPClientError>.self) { group in
                for _ in 0..<10 { group.addTask { await outcome(of: client, HTTPClientRequest(path: "/pending")) } }
                #expect(await eventually { seen.count("/pending") == 10 })
                // Graceful shutdown sends GOAWAY, waits, then answers what is left and closes.
                await server.shutdown(gracePeriod: .seconds(1))
                var results: [Result<HTTPClientResponse, HTTPClientError>] = []
                for await result in group { results.append(result) }
                return results
            }
        }
        #expect(results.count == 10)
        for result in results {
            guard case let .success(response) = result, response.status == 503 else {
                Issue.record("expected 503, got \(result)")
                continue
            }
        }
        #expect(client.lastGoAway?.lastStreamID == 19)
        #expect(client.state == .closed)
        await client.close()
    }
}
