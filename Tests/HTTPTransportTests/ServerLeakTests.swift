import Foundation
import Synchronization
import Testing
@testable import HTTPTransport

/// Many short connections, some aborted mid-request, leave no connection, stream or object behind.
@Suite(.timeLimit(.minutes(1)))
struct ServerLeakTests {
    /// Answers at once, except `/hang`, which it never answers. Keeps only weak references.
    final class WeakTrackingHandler: HTTPServerHandler {
        final class WeakConnection: @unchecked Sendable {
            // Unchecked: written once under the handler's mutex, then only read.
            weak var value: HTTPConnection?
            init(_ value: HTTPConnection) { self.value = value }
        }
        let connections = Mutex<[WeakConnection]>([])
        let closed = Atomic<Int>(0)

        func handle(_ request: HTTPRequest, responder: HTTPResponder) {
            if request.path != "/hang" { responder.respond(HTTPResponse(status: 200, text: "ok\n")) }
        }
        func connectionOpened(_ connection: HTTPConnection) {
            connections.withLock { $0.append(WeakConnection(connection)) }
        }
        func connectionClosed(_ connection: HTTPConnection) { closed.wrappingAdd(1, ordering: .relaxed) }

        var opened: Int { connections.withLock { $0.count } }
        var alive: Int { connections.withLock { $0.filter { $0.value != nil }.count } }
    }

    static func h2EndedStream(_ bytes: [UInt8]) -> Bool {
        H2Frame.parse(bytes).contains { $0.stream == 1 && $0.flags & H2Frame.flagEndStream != 0 }
    }

    /// One connection of kind `kind % 8`; returns whether a request surely reached the handler.
    static func exercise(kind: Int, port: Int) throws -> Bool {
        let client = try RawClient(port: port)
        switch kind % 8 {
        case 0:  // h2c, complete request and response.
            client.send(H2Frame.clientStart + H2Frame.headers(stream: 1, path: "/", endStream: true))
            _ = client.read(until: h2EndedStream)
            client.close()
            return true
        case 1, 2:  // h2c, headers without END_STREAM; the PING ACK proves the server opened the stream.
            client.send(H2Frame.clientStart + H2Frame.headers(stream: 1, path: "/upload", method: "POST", endStream: false)
                + H2Frame.data(stream: 1, Array("partial".utf8), endStream: false) + H2Frame.ping())
            _ = client.read(until: H2Frame.hasPingAck)
            if kind % 8 == 1 { client.close() } else { client.abort() }
            return false
        case 3:  // h2c, a complete request the handler never answers, then RST.
            client.send(H2Frame.clientStart + H2Frame.headers(stream: 1, path: "/hang", endStream: true) + H2Frame.ping())
            _ = client.read(until: H2Frame.hasPingAck)
            client.abort()
            return true
        case 4:  // HTTP/1.1, complete request and response.
            client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = client.read { $0.text.hasSuffix("ok\n") }
            client.close()
            return true
        case 5, 6:  // HTTP/1.1, body cut short.
            client.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\npartial")
            if kind % 8 == 5 { client.close() } else { client.abort() }
            return false
        default:  // HTTP/1.1, a request the handler never answers, then RST.
            client.send("GET /hang HTTP/1.1\r\nHost: x\r\n\r\n")
            client.abort()
            return false
        }
    }

    @Test func thousandConnectionsLeaveNothingOpen() async throws {
        let handler = WeakTrackingHandler()
        let server = try TestServer(handler: handler)
        defer { server.shutdown() }
        let total = 1000

        var confirmedRequests = 0
        for index in 0..<total where try Self.exercise(kind: index, port: server.port) {
            confirmedRequests += 1
        }

        // The last kinds return without waiting for the server, so their connections may still sit
        // in the listen backlog: drained means every connection was accepted and then closed.
        let drained = await eventually(timeout: .seconds(30)) {
            server.metrics.acceptedConnections == total
                && server.metrics.openConnections == 0 && server.metrics.openStreams == 0
        }
        #expect(drained, "\(server.metrics)")
        #expect(server.metrics.acceptedConnections == total)
        #expect(server.metrics.requests >= confirmedRequests)
        #expect(handler.closed.load(ordering: .relaxed) == handler.opened)
        #expect(handler.opened >= total * 6 / 8)
        // Nothing keeps a closed connection's objects alive (no retain cycles through sessions or timers).
        #expect(await eventually { handler.alive == 0 }, "\(handler.alive) connections still alive")
    }
}
