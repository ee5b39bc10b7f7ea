internal import SystemSeam

/// An IPv4 or IPv6 socket address with a port.
public struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
    enum Storage: Sendable, Hashable {
        case v4(host: UInt32, port: UInt16)  // both in network byte order
        case v6(host: [UInt8], port: UInt16, scope: UInt32)
    }
    let storage: Storage

    /// The port in host byte order.
    public var port: Int {
        switch storage {
        case let .v4(_, port), let .v6(_, port, _): return Int(UInt16(bigEndian: port))
        }
    }

    /// True for IPv6 addresses.
    public var isIPv6: Bool {
        if case .v6 = storage { return true }
        return false
    }

    /// The address without the port, such as `127.0.0.1` or `::1`.
    public var host: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        switch storage {
        case let .v4(host, _):
            var addr = in_addr(s_addr: host)
            inet_ntop(AF_INET, &addr, &buffer, socklen_t(buffer.count))
        case let .v6(host, _, _):
            var addr = in6_addr()
            withUnsafeMutableBytes(of: &addr) { $0.copyBytes(from: host) }
            inet_ntop(AF_INET6, &addr, &buffer, socklen_t(buffer.count))
        }
        return String(nulTerminated: buffer)
    }

    /// True for `0.0.0.0` and `::`, the addresses that mean "every interface".
    public var isUnspecified: Bool {
        switch storage {
        case let .v4(host, _): return host == 0
        case let .v6(host, _, _): return host.allSatisfy { $0 == 0 }
        }
    }

    /// `host:port`, with brackets around IPv6 hosts.
    public var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Parses a numeric IPv4 or IPv6 address, or resolves a host name such as `localhost`.
    ///
    /// - Throws: `TransportError.invalidAddress` when nothing matches.
    public init(host: String, port: Int) throws(TransportError) {
        guard (0...65535).contains(port) else { throw .invalidAddress("\(host):\(port) (port out of range)") }
        if let literal = SocketAddress(literal: host, port: port) {
            self = literal
            return
        }
        let trimmed = Self.unbracketed(host)
        var hints = addrinfo()
        hints.ai_socktype = c_system_sock_stream()
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(trimmed, nil, &hints, &result) == 0, let first = result else {
            throw .invalidAddress(host)
        }
        defer { freeaddrinfo(result) }
        guard let resolved = SocketAddress(first.pointee.ai_addr, port: port) else { throw .invalidAddress(host) }
        self = resolved
    }

    /// Parses an IPv4 or IPv6 literal (IPv6 with or without brackets); nil for a host name
    /// or a port out of range. Never resolves, so it never blocks.
    public init?(literal host: String, port: Int) {
        guard (0...65535).contains(port) else { return nil }
        let trimmed = Self.unbracketed(host)
        var v4 = in_addr()
        if inet_pton(AF_INET, trimmed, &v4) == 1 {
            storage = .v4(host: v4.s_addr, port: UInt16(port).bigEndian)
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, trimmed, &v6) == 1 {
            storage = .v6(host: withUnsafeBytes(of: &v6) { Array($0) }, port: UInt16(port).bigEndian, scope: 0)
            return
        }
        return nil
    }

    private static func unbracketed(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }

    /// True for an IPv4 or IPv6 literal, false for a host name.
    static func isNumericHost(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    init?(_ address: UnsafePointer<sockaddr>?, port overridePort: Int? = nil) {
        guard let address else { return nil }
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            let sin = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in.self)
            let port = overridePort.map { UInt16($0).bigEndian } ?? sin.sin_port
            storage = .v4(host: sin.sin_addr.s_addr, port: port)
        case AF_INET6:
            var sin6 = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in6.self)
            let port = overridePort.map { UInt16($0).bigEndian } ?? sin6.sin6_port
            storage = .v6(host: withUnsafeBytes(of: &sin6.sin6_addr) { Array($0) }, port: port, scope: sin6.sin6_scope_id)
        default:
            return nil
        }
    }

    var family: Int32 { isIPv6 ? AF_INET6 : AF_INET }

    /// Calls `body` with this address as a C `sockaddr`.
    func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        switch storage {
        case let .v4(host, port):
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = port
            sin.sin_addr.s_addr = host
            return withUnsafePointer(to: &sin) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        case let .v6(host, port, scope):
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = port
            sin6.sin6_scope_id = scope
            withUnsafeMutableBytes(of: &sin6.sin6_addr) { $0.copyBytes(from: host) }
            return withUnsafePointer(to: &sin6) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
    }
}
