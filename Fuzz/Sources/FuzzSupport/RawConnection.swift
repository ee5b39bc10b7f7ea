#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@_spi(Fuzzing) import HTTPTransport

/// Feeds raw bytes to the suite's HTTP server over a socket pair, as a client that writes
/// them in the pieces given and then half-closes, and reads the server's output either as
/// it comes (drained) or only once everything is written (not drained: the server's
/// output backs up into its socket buffer, made small here, and its own queue).
///
/// Each run waits until the server has closed its side and forgotten the connection, so
/// a connection the server keeps, or a hang, shows as a libFuzzer timeout; a run that
/// outlives ``deadline`` stops the process, whose input is then the finding.
public final class RawConnection: Sendable {
    private let server: SocketServer
    /// The most a run may take; the server's own deadlines are far longer, so a run that
    /// needs this long is a connection the server no longer serves nor closes.
    public let deadline: Duration

    public init(configuration: HTTPServerConfiguration, handler: any HTTPServerHandler, deadline: Duration = .seconds(10)) {
        // A write after the server closed must fail with EPIPE, not end the process.
        signal(SIGPIPE, SIG_IGN)
        do {
            server = try SocketServer(configuration: configuration, handler: handler)
        } catch {
            fatalError("cannot start the server: \(error)")
        }
        self.deadline = deadline
    }

    /// What the client saw.
    public struct Outcome {
        /// Bytes the server wrote.
        public var received = 0
    }

    /// One connection: `pieces` written in order, output drained or not, then half-close,
    /// read to the end, close, and wait for the server to let the connection go.
    @discardableResult
    public func run(_ pieces: [[UInt8]], drainsOutput: Bool) -> Outcome {
        let fds = Self.nonBlockingPair()
        let client = fds[1]
        if !drainsOutput {
            // Small buffers, so a few kilobytes of unread output already block the server's writes.
            var size: Int32 = 4096
            setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            setsockopt(client, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        server.serve(fd: fds[0])
        let end = ContinuousClock.now + deadline
        var outcome = Outcome()
        var scratch = [UInt8](repeating: 0, count: 1 << 16)

        for piece in pieces {
            var offset = 0
            while offset < piece.count {
                let written = piece.withUnsafeBytes { bytes in
                    write(client, bytes.baseAddress.map { $0 + offset }, piece.count - offset)
                }
                if written > 0 {
                    offset += written
                    continue
                }
                if written < 0 && errno != EAGAIN && errno != EWOULDBLOCK { break }  // The server closed.
                // Blocked: the server is not reading. A client that drains waits for either
                // direction; one that does not waits a little, then reads to unblock it.
                var poller = pollfd(fd: client, events: Int16(POLLOUT) | (drainsOutput ? Int16(POLLIN) : 0), revents: 0)
                let ready = poll(&poller, 1, drainsOutput ? 100 : 5)
                if ready == 0 || poller.revents & Int16(POLLIN) != 0 {
                    outcome.received += readAvailable(client, &scratch)
                }
                if poller.revents & Int16(POLLHUP | POLLERR) != 0 { break }
                guard ContinuousClock.now < end else { abandon("writing") }
            }
            if offset < piece.count { break }
            if drainsOutput { outcome.received += readAvailable(client, &scratch) }
        }

        shutdown(client, Int32(SHUT_WR))
        while true {
            var poller = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
            _ = poll(&poller, 1, 100)
            let count = scratch.withUnsafeMutableBytes { read(client, $0.baseAddress, $0.count) }
            if count > 0 {
                outcome.received += count
            } else if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) {
                break
            }
            guard ContinuousClock.now < end else { abandon("waiting for the server to close") }
        }
        close(client)
        while server.metrics.openConnections > 0 {
            guard ContinuousClock.now < end else { abandon("waiting for the server to forget the connection") }
            usleep(20)
        }
        return outcome
    }

    private func readAvailable(_ fd: Int32, _ scratch: inout [UInt8]) -> Int {
        var total = 0
        while true {
            let count = scratch.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { return total }
            total += count
        }
    }

    /// A connected pair of non-blocking, close-on-exec Unix stream sockets. Linux takes the
    /// flags in the socket type; Darwin, whose `SOCK_STREAM` is a plain `Int32`, has no such
    /// flags, so `fcntl` sets them.
    private static func nonBlockingPair() -> [Int32] {
        var fds: [Int32] = [-1, -1]
        #if canImport(Glibc)
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #else
        let type = SOCK_STREAM
        #endif
        guard socketpair(AF_UNIX, type, 0, &fds) == 0 else { fatalError("socketpair: errno \(errno)") }
        #if !canImport(Glibc)
        for fd in fds {
            guard fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0, fcntl(fd, F_SETFD, FD_CLOEXEC) == 0 else {
                fatalError("fcntl: errno \(errno)")
            }
        }
        #endif
        return fds
    }

    private func abandon(_ phase: String) -> Never {
        fatalError("the server neither served nor closed the connection within \(deadline) (\(phase))")
    }
}
