import PushTestSupport
import SystemSeam
import Testing
@_spi(Fuzzing) import HTTPTransport

/// `SocketServer`, the fuzz targets' way in: a socket handed to it is served like an
/// accepted one, and forgotten once it closes.
@Suite(.timeLimit(.minutes(1)))
struct SocketServerTests {
    @Test func servesAConnectedSocketAndForgetsItWhenItCloses() throws {
        let (server, client) = try Self.connectedServer()
        let text = Self.exchange(client, "GET /socket-pair HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(text.hasPrefix("HTTP/1.1 200"), "\(text)")
        #expect(text.hasSuffix("served /socket-pair\n"), "\(text)")

        close(client)
        let deadline = ContinuousClock.now + .seconds(5)
        while server.metrics.openConnections > 0 && ContinuousClock.now < deadline { usleep(1_000) }
        #expect(server.metrics.openConnections == 0)
        #expect(server.metrics.requests == 1)
    }

    /// A request that asks to close is the connection's last: one pipelined behind it in the
    /// same read is neither handed to the handler nor answered.
    @Test func aRequestPipelinedAfterConnectionCloseIsNotServed() throws {
        let (server, client) = try Self.connectedServer()
        defer { close(client) }
        let text = Self.exchange(client, "GET /first HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            + "GET /second HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(text.hasSuffix("served /first\n"), "\(text)")
        #expect(!text.contains("/second"), "\(text)")
        #expect(server.metrics.requests == 1)
    }

    /// A server answering each path with "served PATH", and the client end of a socket pair
    /// it serves (reads time out after 5 s).
    private static func connectedServer() throws -> (SocketServer, Int32) {
        let server = try SocketServer(
            configuration: HTTPServerConfiguration(),
            handler: ClosureHandler { request in HTTPResponse(status: 200, text: "served \(request.path)\n") })
        let (served, client) = try TestSockets.connectedPair()
        _ = fcntl(served, F_SETFL, fcntl(served, F_GETFL) | O_NONBLOCK)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        server.serve(fd: served)
        return (server, client)
    }

    /// Writes `requests` and reads until the server closes the connection.
    private static func exchange(_ client: Int32, _ requests: String) -> String {
        let bytes = Array(requests.utf8)
        #expect(bytes.withUnsafeBytes { write(client, $0.baseAddress, $0.count) } == bytes.count)
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(client, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            answer += buffer[..<count]
        }
        return String(decoding: answer, as: UTF8.self)
    }
}
