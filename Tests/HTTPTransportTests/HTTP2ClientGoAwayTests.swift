import Synchronization
import Testing
@testable import HTTPTransport

@Suite struct HTTP2ClientGoAwayTests {
    static let shutdownReason = Array("{\"reason\":\"Shutdown\"}".utf8)

    /// `/slow` answers after 300 ms; `/goaway` sends GOAWAY with APNs-style debug data, then answers.
    static func handler(seen: HTTP2ClientPathCounter, goAwayDelay: Duration = .zero) -> ClosureHandler {
        ClosureHandler(responder: { request, responder in
            seen.record(request.path)
            switch request.path {
            case "/slow":
                responder.respond(HTTPResponse(status: 200, text: "slow"), after: .milliseconds(300))
            case "/goaway":
                let connection = request.connection
                try? connection.eventLoop.scheduleTask(after: goAwayDelay) {
                    connection.sendGoAway(debugData: shutdownReason)
                    responder.respond(HTTPResponse(status: 200, text: "goaway"))
                }
            default:
                responder.respond(HTTPResponse(status: 200, text: "ok"))
            }
        })
    }

    @Test func requestsTheServerAcceptedCompleteAndLaterSendsFailWithTheDebugData() async throws {
        let seen = HTTP2ClientPathCounter()
        let server = try HTTP2ClientFixtures.server(tls: false, handler: Self.handler(seen: seen))
        let client = try HTTP2ClientFixtures.client(for: server)
        try await withHTTP2ClientTimeout(.seconds(10)) {
            try await withThrowingTaskGroup(of: HTTPClientResponse.self) { group in
                for _ in 0..<4 { group.addTask { try await client.send(HTTPClientRequest(path: "/slow")) } }
                #expect(await eventually { seen.count("/slow") == 4 })
                group.addTask { try await client.send(HTTPClientRequest(path: "/goaway")) }
                var bodies: [String] = []
                for try await response in group {
                    #expect(response.status == 200)
                    bodies.append(String(decoding: response.body, as: UTF8.self))
                }
                #expect(bodies.sorted() == ["goaway", "slow", "slow", "slow", "slow"])
            }
        }
        let goAway = try #require(client.lastGoAway)
        #expect(goAway.errorCode == .noError)
        #expect(goAway.debugData == Self.shutdownReason)
        #expect(goAway.debugText == "{\"reason\":\"Shutdown\"}")
        #expect(goAway.lastStreamID == 9)  // the fifth request: streams 1, 3, 5, 7 were /slow
        #expect(!client.isActive)

        let later = await outcome(of: client, HTTPClientRequest(path: "/"))
        let expected = HTTPClientError.goAway(errorCode: .noError, debugData: Self.shutdownReason, lastStreamID: 9)
        #expect(later == .failure(expected))
        #expect(expected.isRetryable)
        #expect(expected.description.contains("{\"reason\":\"Shutdown\"}"))
        #expect(expected.description.contains("NO_ERROR"))
        #expect(expected.description.contains("retry"))
        #expect(seen.count("/") == 0)
        #expect(await eventually { client.state == .closed })
        #expect(client.outstandingRequests == 0)
        await client.close()
        await server.shutdown(gracePeriod: .milliseconds(200))
    }

    @Test func streamsAboveTheLastStreamIDFailWithARetryableGoAway() async throws {
        let seen = HTTP2ClientPathCounter()
        // One stream at a time: later requests wait in nghttp2 with higher stream IDs
        // that the server has not seen when it says GOAWAY.
        let server = try HTTP2ClientFixtures.server(tls: true, handler: Self.handler(seen: seen, goAwayDelay: .milliseconds(300))) {
            $0.maxConcurrentStreams = 1
        }
        let client = try HTTP2ClientFixtures.client(for: server)
        let warmUp = try await client.send(HTTPClientRequest(path: "/"))
        #expect(warmUp.streamID == 1)
        let results = try await withHTTP2ClientTimeout(.seconds(10)) {
            try await withThrowingTaskGroup(of: (String, Result<HTTPClientResponse, HTTPClientError>).self) { group in
                group.addTask { ("goaway", await outcome(of: client, HTTPClientRequest(path: "/goaway"))) }
                #expect(await eventually { seen.count("/goaway") == 1 })
                for index in 0..<3 {
                    group.addTask { ("queued\(index)", await outcome(of: client, HTTPClientRequest(path: "/queued"))) }
                }
                var results: [String: Result<HTTPClientResponse, HTTPClientError>] = [:]
                for try await (name, result) in group { results[name] = result }
                return results
            }
        }
        let expected = HTTPClientError.goAway(errorCode: .noError, debugData: Self.shutdownReason, lastStreamID: 3)
        #expect(try results["goaway"]?.get().status == 200)
        for index in 0..<3 {
            #expect(results["queued\(index)"] == .failure(expected))
        }
        #expect(seen.count("/queued") == 0)
        #expect(client.lastGoAway == HTTP2GoAway(errorCode: .noError, lastStreamID: 3, debugData: Self.shutdownReason))
        #expect(client.outstandingRequests == 0)
        await client.close()
        await server.shutdown(gracePeriod: .milliseconds(200))
    }

    /// Debug data past one frame (a mock fault's made-up reason of 20 KB) cannot go in a
    /// GOAWAY: it goes without it, so the client still learns to reconnect instead of having
    /// every later stream refused on a connection that never says why.
    @Test func aGoAwayWithDebugDataPastOneFrameIsSentWithout() async throws {
        let huge = [UInt8](repeating: UInt8(ascii: "x"), count: 20_000)
        let handler = ClosureHandler(responder: { request, responder in
            if request.path == "/goaway" { request.connection.sendGoAway(debugData: huge) }
            responder.respond(HTTPResponse(status: 200, text: "ok"))
        })
        let server = try HTTP2ClientFixtures.server(tls: false, handler: handler)
        let client = try HTTP2ClientFixtures.client(for: server)
        let answer = try await withHTTP2ClientTimeout(.seconds(10)) {
            try await client.send(HTTPClientRequest(path: "/goaway"))
        }
        #expect(answer.status == 200)
        #expect(await eventually { client.lastGoAway != nil }, "no GOAWAY reached the client")
        #expect(client.lastGoAway?.debugData == [])
        let later = await outcome(of: client, HTTPClientRequest(path: "/"))
        guard case .failure(.goAway) = later else {
            Issue.record("a send after the GOAWAY: \(later)")
            return
        }
    }
}
