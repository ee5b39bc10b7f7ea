import OpenSSLSupport
internal import SystemSeam


/// A failure in the HTTP transport, with a message a person can act on.
public enum TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A system call failed.
    case system(call: String, errno: Int32)
    /// A host name or address could not be turned into a socket address.
    case invalidAddress(String)
    /// TLS setup or a handshake failed; `entries` is OpenSSL's drained error queue.
    case tls(String, entries: [OpenSSLErrorEntry])
    /// A certificate, key or CA file could not be read or parsed.
    case invalidCredentials(path: String, reason: String)
    /// The peer broke the HTTP/2 or HTTP/1.1 protocol.
    case protocolViolation(String)
    /// The server or connection is shutting down and takes no new work.
    case shuttingDown
    /// The event loop (named) has stopped, because its `EventLoopGroup` was shut down: it
    /// runs no more tasks, and what lived on it was closed.
    case eventLoopStopped(String)
    /// `APNS_MOCK_EVENT_LOOP` holds a value that names no backend available here.
    case unknownEventLoopBackend(String)

    public var description: String {
        switch self {
        case let .system(call, code):
            return "\(call) failed: \(String(cString: strerror(code))) (errno \(code))"
        case let .invalidAddress(address):
            return "cannot use address '\(address)': expected an IPv4 or IPv6 address or a resolvable host name"
        case let .tls(message, entries):
            let detail = entries.map(\.description).joined(separator: "; ")
            return detail.isEmpty ? "TLS: \(message)" : "TLS: \(message) [\(detail)]"
        case let .invalidCredentials(path, reason):
            return "cannot load '\(path)': \(reason)"
        case let .protocolViolation(message):
            return "protocol violation: \(message)"
        case .shuttingDown:
            return "shutting down: no new connections or requests are accepted"
        case let .eventLoopStopped(name):
            return "event loop \(name) has stopped (its EventLoopGroup was shut down): "
                + "keep the group running until every server and client on it has shut down or closed"
        case let .unknownEventLoopBackend(value):
            return EventLoopBackendSetting.unknownValueMessage(value)
        }
    }
}
