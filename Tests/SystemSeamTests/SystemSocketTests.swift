import Testing
@testable import SystemSeam

/// The portable accept gives a non-blocking, close-on-exec descriptor on both of its paths:
/// `accept4` where the system has it, `accept` plus `fcntl` where it does not (macOS), which
/// the tests force here through the fallback switch.
@Suite(.timeLimit(.minutes(1)))
struct SystemSocketTests {
    @Test(arguments: [false, true])
    func anAcceptedDescriptorIsNonBlockingAndCloseOnExec(usingFallback: Bool) throws {
        let listener = try LoopbackListener()
        defer { close(listener.fd) }
        let client = try listener.connectClient()
        defer { close(client) }

        let accepted = SystemSocket.acceptNonBlocking(listener.fd, nil, nil, usingFallback: usingFallback)
        #expect(accepted >= 0, "accept failed: errno \(errno)")
        guard accepted >= 0 else { return }
        defer { close(accepted) }
        #expect(fcntl(accepted, F_GETFL) & O_NONBLOCK != 0)
        #expect(fcntl(accepted, F_GETFD) & FD_CLOEXEC != 0)
        // The descriptor is the connection: what the client sends arrives on it.
        var byte: UInt8 = 42
        #expect(write(client, &byte, 1) == 1)
        var received: UInt8 = 0
        var answer = -1
        for _ in 0..<1000 {
            answer = read(accepted, &received, 1)
            if answer == 1 || errno != EAGAIN { break }
            usleep(1000)
        }
        #expect(answer == 1 && received == 42)
    }

    @Test(arguments: [false, true])
    func anEmptyQueueReportsWouldBlock(usingFallback: Bool) throws {
        let listener = try LoopbackListener()
        defer { close(listener.fd) }
        let accepted = SystemSocket.acceptNonBlocking(listener.fd, nil, nil, usingFallback: usingFallback)
        let code = errno
        #expect(accepted == -1)
        #expect(code == EAGAIN || code == EWOULDBLOCK)
    }

    @Test func theFallbackFillsInThePeerAddress() throws {
        let listener = try LoopbackListener()
        defer { close(listener.fd) }
        let client = try listener.connectClient()
        defer { close(client) }
        var storage = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let accepted = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                SystemSocket.acceptNonBlocking(listener.fd, $0, &length, usingFallback: true)
            }
        }
        #expect(accepted >= 0)
        if accepted >= 0 { close(accepted) }
        #expect(Int32(storage.sin_family) == AF_INET)
        #expect(storage.sin_addr.s_addr == UInt32(0x7f00_0001).bigEndian)
    }

    @Test func anOpenedStreamSocketIsNonBlockingAndCloseOnExec() {
        let fd = SystemSocket.openStream(family: AF_INET)
        #expect(fd >= 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        #expect(fcntl(fd, F_GETFL) & O_NONBLOCK != 0)
        #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0)
    }

    @Test func aWriteToAVanishedPeerFailsWithEPIPEInsteadOfASignal() throws {
        let listener = try LoopbackListener()
        defer { close(listener.fd) }
        let client = try listener.connectClient()
        defer { close(client) }
        let accepted = SystemSocket.acceptNonBlocking(listener.fd, nil, nil)
        #expect(accepted >= 0)
        guard accepted >= 0 else { return }
        // Reset by the peer: the next writes fail (EPIPE once the kernel saw the reset).
        var linger = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(accepted, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
        close(accepted)
        var byte: UInt8 = 1
        var result = 0
        var code: Int32 = 0
        for _ in 0..<1000 {
            result = send(client, &byte, 1, SystemSocket.sendFlags)
            code = errno
            if result < 0 { break }
            usleep(1000)
        }
        // Reaching this line at all means no SIGPIPE killed the test process.
        #expect(result == -1)
        #expect(code == EPIPE || code == ECONNRESET)
    }
}

/// A blocking IPv4 listener on 127.0.0.1 and an ephemeral port, non-blocking for accepts.
private struct LoopbackListener {
    let fd: Int32
    let port: UInt16

    init() throws {
        let listener = socket(AF_INET, c_system_sock_stream(), 0)
        guard listener >= 0 else { throw SocketTestError(call: "socket", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ready = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 8) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard ready else {
            let code = errno
            close(listener)
            throw SocketTestError(call: "bind/listen", code: code)
        }
        _ = fcntl(listener, F_SETFL, fcntl(listener, F_GETFL) | O_NONBLOCK)
        fd = listener
        port = UInt16(bigEndian: address.sin_port)
    }

    /// A connected client socket; the connection waits in the listener's queue.
    func connectClient() throws -> Int32 {
        let client = socket(AF_INET, c_system_sock_stream(), 0)
        guard client >= 0 else { throw SocketTestError(call: "socket", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        address.sin_port = port.bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(client)
            throw SocketTestError(call: "connect", code: errno)
        }
        return client
    }
}

private struct SocketTestError: Error {
    let call: String
    let code: Int32
}
