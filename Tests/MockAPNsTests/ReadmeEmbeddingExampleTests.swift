import Foundation
import HTTPTransport
import MockAPNs
import Testing

/// The README's embedding example, kept compiling and true.
@Suite(.timeLimit(.minutes(1)))
struct ReadmeEmbeddingExampleTests {
    @Test func theReadmeExampleWaitsForAPushAndSetsAFault() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: MockAPNsServerTests.certs)
        defer { mock.stop() }
        let client = try MockAPNsServerTests.client(for: mock.sandboxURL, trust: mock.trustRootsPath)
        let token = try MockAPNsServerTests.providerToken()

        _ = try await client.send(MockAPNsServerTests.push(token: token))
        let result = await mock.capture.wait(for: CaptureFilter(topic: "com.example.app"), count: 1, timeout: .seconds(5))
        #expect(result.isSatisfied)
        try mock.faults.add(FaultRule(id: "down", action: .unavailable(.serviceUnavailable)))
        let down = try await client.send(MockAPNsServerTests.push(token: token))
        #expect(down.status == 503)
        await client.close()
    }
}
