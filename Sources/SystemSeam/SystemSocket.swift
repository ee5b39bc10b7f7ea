/// Socket calls whose portable spelling differs between C libraries: non-blocking,
/// close-on-exec descriptors, and writes to a vanished peer that must fail with `EPIPE`
/// instead of raising SIGPIPE.
///
/// Each returns what the underlying call returns: a descriptor, or -1 with `errno` set.
package enum SystemSocket {
    /// A non-blocking, close-on-exec stream socket of `family` (`socket(2)`).
    ///
    /// On Linux the flags go into the socket type; elsewhere `fcntl` sets them right after,
    /// and the socket is set `SO_NOSIGPIPE` where that option exists.
    package static func openStream(family: Int32) -> Int32 {
        #if os(Linux)
        return socket(family, c_system_sock_stream() | c_system_sock_nonblock_cloexec(), 0)
        #else
        return configured(socket(family, c_system_sock_stream(), 0))
        #endif
    }

    /// Accepts one pending connection on `listener` as a non-blocking, close-on-exec
    /// descriptor (`accept4` with `SOCK_NONBLOCK | SOCK_CLOEXEC`).
    ///
    /// Where `accept4` is missing it is `accept` followed by `fcntl`. Between the two calls
    /// the descriptor is not yet close-on-exec, so a child process started by another thread
    /// at that moment (the simulator forwarder's `xcrun`) can inherit it and hold the
    /// connection open until that child exits; the forwarder's commands end within their
    /// timeout.
    ///
    /// - Parameters:
    ///   - address: receives the peer's address, as for `accept(2)`; may be nil.
    ///   - length: the size of `address` on entry, of the peer's address on return.
    package static func acceptNonBlocking(
        _ listener: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: UnsafeMutablePointer<socklen_t>?
    ) -> Int32 {
        #if os(Linux)
        acceptNonBlocking(listener, address, length, usingFallback: false)
        #else
        acceptNonBlocking(listener, address, length, usingFallback: true)
        #endif
    }

    /// The flags for `send(2)` on a socket: `MSG_NOSIGNAL` where it exists; elsewhere the
    /// socket's `SO_NOSIGPIPE` (set by ``openStream(family:)`` and ``acceptNonBlocking(_:_:_:)``)
    /// does the same.
    package static var sendFlags: Int32 {
        #if os(Linux)
        Int32(MSG_NOSIGNAL)
        #else
        0
        #endif
    }

    /// Ignores SIGPIPE for the whole process, once: libraries that write to sockets with
    /// `write(2)` (OpenSSL's socket BIO) cannot pass `MSG_NOSIGNAL`, so without this a peer
    /// that hangs up would kill the process.
    package static func ignoreBrokenPipeSignals() {
        brokenPipeIgnored
    }

    private static let brokenPipeIgnored: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    /// Bytes written to `socket` that the peer has not acknowledged yet, or nil where the
    /// system cannot tell (Linux: `TIOCOUTQ`; Darwin: `SO_NWRITE`, the unsent bytes).
    package static func unacknowledgedOutputCount(_ socket: Int32) -> Int? {
        var count: Int32 = 0
        #if os(Linux)
        return ioctl(socket, UInt(TIOCOUTQ), &count) == 0 ? Int(count) : nil
        #elseif canImport(Darwin)
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(socket, SOL_SOCKET, SO_NWRITE, &count, &length) == 0 ? Int(count) : nil
        #else
        return nil
        #endif
    }

    // `usingFallback` lets the tests run the path of a system without `accept4` on Linux.
    static func acceptNonBlocking(
        _ listener: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: UnsafeMutablePointer<socklen_t>?,
        usingFallback: Bool
    ) -> Int32 {
        #if os(Linux)
        if !usingFallback {
            return accept4(listener, address, length, c_system_sock_nonblock_cloexec())
        }
        #endif
        return configured(accept(listener, address, length))
    }

    /// `fd` made close-on-exec, non-blocking unless `nonBlocking` is false, and (where the
    /// option exists) `SO_NOSIGPIPE`; -1 with `errno` from the failing `fcntl` if that fails,
    /// the descriptor then closed. For systems whose `socket(2)` takes no such flags.
    package static func configured(_ fd: Int32, nonBlocking: Bool = true) -> Int32 {
        guard fd >= 0 else { return fd }
        let statusFlags = fcntl(fd, F_GETFL)
        guard statusFlags >= 0, !nonBlocking || fcntl(fd, F_SETFL, statusFlags | O_NONBLOCK) == 0,
              fcntl(fd, F_SETFD, FD_CLOEXEC) == 0 else {
            let code = errno
            close(fd)
            errno = code
            return -1
        }
        #if canImport(Darwin)
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
        return fd
    }
}
