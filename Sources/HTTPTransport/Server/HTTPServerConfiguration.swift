/// Where and how an `HTTPServer` listens, and the limits it enforces.
public struct HTTPServerConfiguration: Sendable, Hashable {
    /// Address to bind: an IPv4 or IPv6 literal or a host name. `::` listens on both families.
    public var host: String
    /// Port to bind; 0 picks a free port, which `HTTPServer.localAddress` reports.
    public var port: Int
    /// TLS settings, or nil for cleartext (h2c and HTTP/1.1 on one port).
    public var tls: TLSConfiguration?
    /// Connections beyond this are closed at once after accept.
    public var maxConnections: Int
    /// SETTINGS_MAX_CONCURRENT_STREAMS sent at connection start.
    public var maxConcurrentStreams: Int
    /// Largest header list (RFC 9113 size: name + value + 32 per field) accepted: 431 above it.
    public var maxHeaderListSize: Int
    /// Largest request body accepted: 413 above it.
    public var maxBodySize: Int
    /// A connection with no open stream and no traffic for this long is closed.
    public var idleTimeout: Duration
    /// Debug data of the GOAWAY that closes an idle HTTP/2 connection, so a server can say
    /// why in its own words (APNs sends `{"reason":"IdleTimeout"}`).
    public var idleGoAwayDebugData: [UInt8]
    /// TLS handshake and protocol detection must finish within this.
    public var handshakeTimeout: Duration
    /// HTTP/2 flow-control window per stream and for the connection.
    public var initialWindowSize: Int
    /// Whether HTTP/1.1 is served beside HTTP/2. When false the server speaks HTTP/2 only,
    /// as APNs does: TLS offers only `h2` in ALPN, and a connection that does not open with
    /// the HTTP/2 preface is refused by the HTTP/2 session (GOAWAY `PROTOCOL_ERROR`, then
    /// close), never answered in HTTP/1.1.
    public var acceptsHTTP1: Bool

    public static let defaultMaxConnections = 10_000
    public static let defaultMaxConcurrentStreams = 1_000
    public static let defaultMaxHeaderListSize = 64 * 1024
    public static let defaultMaxBodySize = 1024 * 1024
    public static let defaultIdleTimeout = Duration.seconds(300)
    public static let defaultHandshakeTimeout = Duration.seconds(10)
    public static let defaultInitialWindowSize = 1024 * 1024

    /// A configuration with every limit at its named default.
    public init(host: String = "127.0.0.1", port: Int = 0, tls: TLSConfiguration? = nil) {
        self.host = host
        self.port = port
        self.tls = tls
        maxConnections = Self.defaultMaxConnections
        maxConcurrentStreams = Self.defaultMaxConcurrentStreams
        maxHeaderListSize = Self.defaultMaxHeaderListSize
        maxBodySize = Self.defaultMaxBodySize
        idleTimeout = Self.defaultIdleTimeout
        idleGoAwayDebugData = Array("idle timeout".utf8)
        handshakeTimeout = Self.defaultHandshakeTimeout
        initialWindowSize = Self.defaultInitialWindowSize
        acceptsHTTP1 = true
    }
}
