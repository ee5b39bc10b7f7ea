internal import SystemSeam

/// A non-blocking stream socket that owns its file descriptor and closes it once.
final class Socket {
    let fd: Int32
    private(set) var isOpen = true

    /// Takes ownership of `fd`.
    init(takingOwnershipOf fd: Int32) {
        self.fd = fd
    }

    deinit { close() }

    /// Opens a non-blocking TCP socket for `address`'s family.
    static func makeTCP(for address: SocketAddress) throws(TransportError) -> Socket {
        let fd = SystemSocket.openStream(family: address.family)
        guard fd >= 0 else { throw .system(call: "socket", errno: errno) }
        return Socket(takingOwnershipOf: fd)
    }

    func setOption(level: Int32, name: Int32, value: Int32) {
        var value = value
        _ = setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Turns off Nagle's algorithm: HTTP/2 frames are small and latency matters.
    func setNoDelay() { setOption(level: Int32(IPPROTO_TCP), name: TCP_NODELAY, value: 1) }

    enum IOResult: Equatable {
        case bytes(Int)
        case wouldBlock
        case closed
        case failed(Int32)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        while true {
            let count = SystemSeam.read(fd, buffer.baseAddress, buffer.count)
            if count > 0 { return .bytes(count) }
            if count == 0 { return .closed }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: return .failed(errno)
            }
        }
    }

    func write(_ buffer: UnsafeRawBufferPointer) -> IOResult {
        while true {
            // A peer that vanished must give EPIPE, not kill the process with SIGPIPE.
            let count = send(fd, buffer.baseAddress, buffer.count, SystemSocket.sendFlags)
            if count >= 0 { return .bytes(count) }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            case EPIPE, ECONNRESET: return .closed
            default: return .failed(errno)
            }
        }
    }

    /// The error pending on the socket, such as a refused connect.
    func pendingError() -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &value, &length)
        return value
    }

    /// Sends RST instead of FIN when closed, for aborting a peer.
    /// Bytes written that the peer's kernel has not acknowledged yet; 0 if unknown.
    func unacknowledgedOutputCount() -> Int {
        SystemSocket.unacknowledgedOutputCount(fd) ?? 0
    }

    func setLingerZero() {
        var value = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &value, socklen_t(MemoryLayout<linger>.size))
    }

    func localAddress() -> SocketAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        return withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                getsockname(fd, pointer, &length) == 0 ? SocketAddress(pointer) : nil
            }
        }
    }

    func close() {
        guard isOpen else { return }
        isOpen = false
        SystemSeam.close(fd)
    }
}
