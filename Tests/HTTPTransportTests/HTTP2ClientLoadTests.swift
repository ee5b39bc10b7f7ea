import Testing
@testable import HTTPTransport

@Suite struct HTTP2ClientLoadTests {
    static let total = 10_000
    static let window = 100

    @Test(arguments: [false, true])
    func tenThousandEchoedRequestsShareOneConnection(tls: Bool) async throws {
        let server = try HTTP2ClientFixtures.server(tls: tls, handler: HTTP2ClientFixtures.echo)
        let client = try HTTP2ClientFixtures.client(for: server)
        let checked = try await withHTTP2ClientTimeout(.seconds(120)) {
            try await withThrowingTaskGroup(of: (Int, HTTPClientResponse).self) { group in
                func add(_ index: Int) {
                    group.addTask {
                        let request = HTTPClientRequest(
                            method: "POST", path: "/3/device/\(index)", headers: ["x-marker": "m\(index)"],
                            body: Array("payload-\(index)-\(String(repeating: "x", count: index % 200))".utf8))
                        return (index, try await client.send(request))
                    }
                }
                var next = 0
                while next < Self.window { add(next); next += 1 }
                var checked = 0
                while let (index, response) = try await group.next() {
                    #expect(response.status == 200)
                    #expect(response.headers["x-echo-marker"] == "m\(index)")
                    #expect(response.body == Array("payload-\(index)-\(String(repeating: "x", count: index % 200))".utf8))
                    checked += 1
                    if next < Self.total { add(next); next += 1 }
                }
                return checked
            }
        }
        #expect(checked == Self.total)
        #expect(server.metrics.acceptedConnections == 1)
        #expect(server.metrics.requests == Self.total)
        #expect(client.outstandingRequests == 0)
        #expect(client.isActive)
        await client.close()
        await server.shutdown(gracePeriod: .milliseconds(200))
    }
}
