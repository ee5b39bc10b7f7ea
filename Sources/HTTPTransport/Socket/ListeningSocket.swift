internal import SystemSeam

/// A bound, listening TCP socket.
final class ListeningSocket {
    let socket: Socket
    let address: SocketAddress

    init(address: SocketAddress, backlog: Int32 = 1024) throws(TransportError) {
        let socket = try Socket.makeTCP(for: address)
        socket.setOption(level: SOL_SOCKET, name: SO_REUSEADDR, value: 1)
        if address.isIPv6 {
            // `::` means every address of both families (IPv4 arrives mapped); any other
            // IPv6 address serves IPv6 only, whatever the system default says.
            socket.setOption(level: Int32(IPPROTO_IPV6), name: IPV6_V6ONLY, value: address.isUnspecified ? 0 : 1)
        }
        let bound = address.withSockAddr { bind(socket.fd, $0, $1) }
        guard bound == 0 else { throw .system(call: "bind(\(address))", errno: errno) }
        guard listen(socket.fd, backlog) == 0 else { throw .system(call: "listen(\(address))", errno: errno) }
        self.socket = socket
        self.address = socket.localAddress() ?? address
    }

    /// Accepts one pending connection, or returns nil when none is waiting.
    ///
    /// - Throws: `TransportError.system` when accepting failed for another reason than an
    ///   empty queue, such as `EMFILE` (the process is out of file descriptors) or `ENFILE`
    ///   (the system is): the connection stays queued, and the listener stays readable.
    func accept() throws(TransportError) -> (Socket, SocketAddress?)? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        while true {
            let fd = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    SystemSocket.acceptNonBlocking(socket.fd, $0, &length)
                }
            }
            if fd >= 0 {
                let peer = withUnsafePointer(to: &storage) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SocketAddress($0) }
                }
                return (Socket(takingOwnershipOf: fd), peer)
            }
            switch errno {
            case EINTR, ECONNABORTED: continue
            case EAGAIN, EWOULDBLOCK: return nil
            case let code: throw .system(call: "accept", errno: code)
            }
        }
    }
}
