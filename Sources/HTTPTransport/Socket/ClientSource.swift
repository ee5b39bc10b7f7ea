/// The address a client is counted by when limits apply per client: an IPv4 address, or the
/// /64 prefix of an IPv6 one.
///
/// An IPv6 host is usually given a whole /64, and can pick any address in it for each
/// connection, so counting its addresses one by one would limit nothing. The port never
/// counts: every connection has its own.
public struct ClientSource: Sendable, Hashable, CustomStringConvertible {
    private enum Key: Sendable, Hashable {
        case v4(UInt32)
        case v6(UInt64)
    }

    private let key: Key

    /// The source of a connection from `address`.
    public init(_ address: SocketAddress) {
        switch address.storage {
        case let .v4(host, _):
            key = .v4(UInt32(bigEndian: host))
        case let .v6(host, _, _):
            // An IPv4-mapped address (::ffff:a.b.c.d, from a dual-stack listener) is its IPv4 host.
            if host.count == 16, host[0..<10].allSatisfy({ $0 == 0 }), host[10] == 0xFF, host[11] == 0xFF {
                key = .v4(host[12...].reduce(0) { $0 << 8 | UInt32($1) })
            } else {
                key = .v6(host.prefix(8).reduce(0) { $0 << 8 | UInt64($1) })
            }
        }
    }

    /// `203.0.113.7`, or `2001:db8:0:1::/64`.
    public var description: String {
        switch key {
        case .v4(let host):
            return "\(host >> 24).\(host >> 16 & 0xFF).\(host >> 8 & 0xFF).\(host & 0xFF)"
        case .v6(let prefix):
            let groups = (0..<4).map { String(prefix >> (48 - 16 * UInt64($0)) & 0xFFFF, radix: 16) }
            return groups.joined(separator: ":") + "::/64"
        }
    }
}
