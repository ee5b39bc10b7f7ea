import Testing
@testable import HTTPTransport

/// A stream the server refuses unprocessed (REFUSED_STREAM) is sent again on the same
/// connection as often as `maximumRefusedStreamResends` allows, then reported.
@Suite struct HTTP2ClientRefusedStreamTests {
    @Test(arguments: [0, 2, HTTP2ClientConfiguration.defaultMaximumRefusedStreamResends])
    func aRefusedRequestIsResentAsOftenAsConfiguredThenReported(resends: Int) async throws {
        let seen = HTTP2ClientPathCounter()
        let server = try HTTP2ClientFixtures.server(tls: false, handler: ClosureHandler(responder: { request, responder in
            seen.record(request.path)
            if request.path == "/refused" {
                responder.reset(errorCode: .refusedStream)
            } else {
                responder.respond(HTTPResponse(status: 200, text: "ok"))
            }
        }))
        let client = try HTTP2ClientFixtures.client(for: server) { $0.maximumRefusedStreamResends = resends }
        let (result, after) = try await withHTTP2ClientTimeout(.seconds(10)) {
            let result = await outcome(of: client, HTTPClientRequest(path: "/refused"))
            // The connection itself is fine.
            return (result, await outcome(of: client, HTTPClientRequest(path: "/")))
        }
        #expect(result == .failure(.streamReset(errorCode: .refusedStream)))
        #expect(seen.count("/refused") == 1 + resends, "sent once, then resent \(resends) times")
        #expect((try? after.get())?.status == 200)
        await client.close()
        await server.shutdown(gracePeriod: .milliseconds(200))
    }
}
