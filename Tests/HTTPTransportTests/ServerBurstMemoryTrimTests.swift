import Foundation
import Testing
@testable import HTTPTransport

/// After a burst of connections closes, the server gives the allocator's free memory back
/// to the system (issue finding 5), once per burst and never for steady traffic.
@Suite(.timeLimit(.minutes(1)))
struct ServerBurstMemoryTrimTests {
    /// A server that closes none of the test's connections itself: a loaded machine can stall
    /// the test past the handshake and preface timeouts, and those closes would keep the
    /// open count from ever reaching what the test opened.
    private static func patientServer() throws -> TestServer {
        try TestServer(handler: RecordingHandler()) { configuration in
            configuration.handshakeTimeout = .seconds(600)
            configuration.connectionPrefaceTimeout = .seconds(600)
        }
    }

    @Test func theEndOfABurstTrimsOnce() async throws {
        let server = try Self.patientServer()
        defer { server.shutdown() }
        let burst = BurstMemoryTrim.minimumBurst + 44
        var clients: [RawClient] = []
        for _ in 0..<burst {
            let client = try RawClient(port: server.port)
            client.send(H2Frame.clientStart)
            clients.append(client)
        }
        #expect(await eventually { server.metrics.openConnections == burst }, "\(server.metrics)")
        let trims = { server.server.context.counters.memoryTrims.load(ordering: .relaxed) }
        #expect(trims() == 0, "no trim while connections open")
        for client in clients { client.close() }
        #expect(await eventually { server.metrics.openConnections == 0 })
        #expect(trims() == 1, "one trim when the burst had halved")
    }

    @Test func aFewConnectionsNeverTrim() async throws {
        let server = try Self.patientServer()
        defer { server.shutdown() }
        for _ in 0..<3 {
            var clients: [RawClient] = []
            for _ in 0..<20 { clients.append(try RawClient(port: server.port)) }
            #expect(await eventually { server.metrics.openConnections == 20 }, "\(server.metrics)")
            for client in clients { client.close() }
            #expect(await eventually { server.metrics.openConnections == 0 })
        }
        #expect(server.server.context.counters.memoryTrims.load(ordering: .relaxed) == 0)
    }
}
