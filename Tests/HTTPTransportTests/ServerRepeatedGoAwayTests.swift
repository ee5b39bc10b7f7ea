import Foundation
import Testing
@testable import HTTPTransport

/// A GOAWAY sent after the connection began its graceful close must not turn that close into
/// an abortive one. The mock sends one GOAWAY per fired fault rule, so two rules firing on one
/// connection send two. Written after FIN, the second would fail and close the socket with
/// the client's input unread, and the kernel's RST would then destroy answers the client has
/// not read yet: the client would see "connection closed" for pushes the server processed,
/// and the APNs client would send them again
/// (APNsClientPoolTests.goAwayWithPushesInFlightLosesNone).
@Suite(.timeLimit(.minutes(1)))
struct ServerRepeatedGoAwayTests {
    @Test func aSecondGoAwayWhileClosingKeepsTheCloseGraceful() async throws {
        let body = [UInt8](repeating: UInt8(ascii: "a"), count: 3000)
        let handler = RecordingHandler { _, responder in responder.respond(HTTPResponse(status: 200, body: body)) }
        let server = try TestServer(handler: handler)
        defer { server.shutdown() }
        let port = server.port
        // Blocking socket work on a thread of its own, off the two-thread cooperative pool.
        let outcome = await onThread { () -> (acknowledged: Bool, bytes: [UInt8], end: RawClient.End)? in
            // A small receive window: most of the answer waits in the server's send queue, where an RST discards it.
            guard let client = try? RawClient(port: port, receiveBufferSize: 1) else { return nil }
            client.send(H2Frame.clientStart + H2Frame.headers(stream: 1, path: "/answer", endStream: true))
            let deadline = ContinuousClock.now + .seconds(20)
            while handler.requests.isEmpty, ContinuousClock.now < deadline { usleep(1000) }
            guard let connection = handler.requests.first?.connection else { return nil }

            // The server's loop is held while the client sends a PING that reaches the server's
            // socket but is not read: the client's frames in flight when the mock closes.
            let held = DispatchSemaphore(value: 0)
            let sent = DispatchSemaphore(value: 0)
            let finished = DispatchSemaphore(value: 0)
            try? connection.eventLoop.execute {
                held.signal()
                _ = sent.wait(timeout: .now() + 30)
                // The stream is answered: the first GOAWAY ends the session and the close begins.
                connection.sendGoAway()
                connection.sendGoAway()
                finished.signal()
            }
            held.wait()
            client.send(H2Frame.ping())
            let acknowledged = client.waitUntilAcknowledged()
            sent.signal()
            finished.wait()
            let (bytes, end) = client.readToEnd()
            return (acknowledged, bytes, end)
        }
        let (acknowledged, bytes, end) = try #require(outcome, "no connection or no request")
        #expect(acknowledged, "the PING never reached the server's socket")
        let frames = H2Frame.parse(bytes)
        let answer = frames.filter { $0.type == H2Frame.typeData && $0.stream == 1 }
        #expect(end == .closed, "the server reset the connection instead of closing it")
        #expect(answer.reduce(0) { $0 + $1.payload.count } == body.count, "the answer was cut short")
        #expect(answer.last.map { $0.flags & H2Frame.flagEndStream != 0 } == true)
        #expect(frames.contains { $0.type == H2Frame.typeGoAway })
    }
}
