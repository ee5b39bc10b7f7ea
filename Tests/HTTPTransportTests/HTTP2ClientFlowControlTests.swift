import Testing
@testable import HTTPTransport

@Suite struct HTTP2ClientFlowControlTests {
    @Test(arguments: [false, true])
    func bodiesLargerThanTheFlowControlWindowsArriveIntact(tls: Bool) async throws {
        let server = try HTTP2ClientFixtures.server(tls: tls, handler: HTTP2ClientFixtures.echo) {
            $0.initialWindowSize = 65_535
        }
        // A small window makes both sides wait for WINDOW_UPDATE several times per body.
        let client = try HTTP2ClientFixtures.client(for: server) { $0.initialWindowSize = 65_535 }
        let body = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let responses = try await withHTTP2ClientTimeout(.seconds(20)) {
            try await withThrowingTaskGroup(of: HTTPClientResponse.self) { group in
                for _ in 0..<4 { group.addTask { try await client.send(HTTPClientRequest(method: "POST", path: "/", body: body)) } }
                var responses: [HTTPClientResponse] = []
                for try await response in group { responses.append(response) }
                return responses
            }
        }
        #expect(responses.count == 4)
        #expect(responses.allSatisfy { $0.status == 200 && $0.body == body })
        #expect(responses.allSatisfy { $0.headers["content-length"] == "300000" })
        await client.close()
        await server.shutdown(gracePeriod: .milliseconds(200))
    }
}
