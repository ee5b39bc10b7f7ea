import Glibc
import Testing
@_spi(Fuzzing) import HTTPTransport

/// `SocketServer`, the fuzz targets' way in: a socket handed to it is served like an
/// accepted one, and forgotten once it closes.
@Suite(.timeLimit(.minutes(1)))
struct SocketServerTests {
    @Test func servesAConnectedSocketAndForgetsItWhenItCloses() throws {
        let server = try SocketServer(
            configuration: HTTPServerConfiguration(),
            handler: ClosureHandler { request in HTTPResponse(status: 200, text: "served \(request.path)\n") })
        var fds: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0)
        let client = fds[1]
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        server.serve(fd: fds[0])

        let request = Array("GET /socket-pair HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8)
        #expect(request.withUnsafeBytes { write(client, $0.baseAddress, $0.count) } == request.count)
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(client, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            answer += buffer[..<count]
        }
        let text = String(decoding: answer, as: UTF8.self)
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
        let server = try SocketServer(
            configuration: HTTPServerConfiguration(),
            handler: ClosureHandler { request in HTTPResponse(status: 200, text: "served \(request.path)\n") })
        var fds: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0)
        let client = fds[1]
        defer { close(client) }
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        server.serve(fd: fds[0])

        let requests = Array(("GET /first HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            + "GET /second HTTP/1.1\r\nHost: x\r\n\r\n").utf8)
        #expect(requests.withUnsafeBytes { write(client, $0.baseAddress, $0.count) } == requests.count)
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(client, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            answer += buffer[..<count]
        }
        let text = String(decoding: answer, as: UTF8.self)
        #expect(text.hasSuffix("served /first\n"), "\(text)")
        #expect(!text.contains("/second"), "\(text)")
        #expect(server.metrics.requests == 1)
    }
}
