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
    /// Connections one client may hold open at once, counted by ``ClientSource`` (its IPv4
    /// address, or its IPv6 /64); one more is closed at once after accept, as beyond
    /// ``maxConnections``, and counted in `TransportMetrics.rejectedSourceConnections`. nil
    /// (the default): no limit per client. Behind a proxy every client has the proxy's address.
    public var maxConnectionsPerSource: Int?
    /// SETTINGS_MAX_CONCURRENT_STREAMS sent at connection start.
    public var maxConcurrentStreams: Int
    /// Largest header list (RFC 9113 size: name + value + 32 per field) accepted: 431 above it
    /// (answered by the handler's `rejectedRequestResponse`). HTTP/2 announces it as
    /// SETTINGS_MAX_HEADER_LIST_SIZE.
    public var maxHeaderListSize: Int
    /// Largest request body accepted: 413 above it (answered by the handler's `rejectedRequestResponse`).
    public var maxBodySize: Int
    /// A connection with no open stream and no traffic for this long is closed.
    public var idleTimeout: Duration
    /// How long a request may take to arrive whole (request line or HEADERS, every header
    /// and the body), counted from its first byte, so a client that sends slowly (a byte
    /// now and then, a body that never ends) cannot hold a connection or stream forever.
    ///
    /// Past it the request is answered 408 by the handler's `rejectedRequestResponse` and
    /// counted (`TransportMetrics.timedOutRequests`). HTTP/1.1 then closes the connection.
    /// HTTP/2 resets the stream (NO_ERROR) after the answer and sends GOAWAY: streams already
    /// open finish, and the client opens no new ones on that connection. Only reading is
    /// timed: a request that has arrived whole waits for the handler's answer as long as it
    /// takes. An HTTP/1.1 request's clock starts at the first byte read after the previous
    /// answer (empty lines included); a pipelined request's when the server starts reading it.
    /// Checked by the connection's one timer (no timer per request), which then wakes at
    /// least once per this interval.
    public var requestReadTimeout: Duration
    /// How long a request's header block may take (HTTP/1.1: request line and headers;
    /// HTTP/2: HEADERS and any CONTINUATION frames), counted from its first byte. Past it the
    /// request is answered 408 and counted, exactly as past ``requestReadTimeout``, which
    /// still bounds the whole request, body included. Checked by the same timer.
    public var requestHeadersTimeout: Duration
    /// HTTP/2: how long the client may take to send its connection preface and first
    /// SETTINGS frame, counted from when the connection is known to be HTTP/2 (the TLS
    /// handshake chose `h2`; a cleartext HTTP/2-only server: accept; a cleartext server that
    /// also speaks HTTP/1.1: the preface's 24 bytes, which `handshakeTimeout` bounds). Past
    /// it the connection gets GOAWAY and is closed, and is counted
    /// (`TransportMetrics.prefaceTimeouts`). Once the SETTINGS frame is in, an idle connection
    /// may stay until ``idleTimeout``, as a provider's pre-warmed connections do.
    public var connectionPrefaceTimeout: Duration
    /// Debug data of the GOAWAY that closes an idle HTTP/2 connection, so a server can say
    /// why in its own words (APNs sends `{"reason":"IdleTimeout"}`).
    public var idleGoAwayDebugData: [UInt8]
    /// Debug data of the GOAWAY that `HTTPServer.shutdown(gracePeriod:)` sends on every
    /// HTTP/2 connection (APNs sends `{"reason":"Shutdown"}`); empty by default.
    public var shutdownGoAwayDebugData: [UInt8]
    /// TLS handshake and protocol detection must finish within this.
    public var handshakeTimeout: Duration
    /// HTTP/2 flow-control window of each stream, announced as SETTINGS_INITIAL_WINDOW_SIZE:
    /// how much of one request body a client may send before the server acknowledges it.
    public var initialWindowSize: Int
    /// HTTP/2 flow-control window of the connection, all streams' bodies together, opened with
    /// a WINDOW_UPDATE on stream 0 at connection start. Kept apart from `initialWindowSize`
    /// so that a small per-stream window (APNs announces 65,535 bytes) does not throttle
    /// many streams sending at once.
    public var connectionWindowSize: Int
    /// SETTINGS_HEADER_TABLE_SIZE announced at connection start (the HPACK dynamic table the
    /// server decodes requests with); nil announces nothing, which means the protocol's 4096.
    public var headerTableSize: Int?
    /// SETTINGS_MAX_FRAME_SIZE announced at connection start, clamped to HTTP/2's
    /// 16,384-16,777,215; nil announces nothing, which means the protocol's 16,384.
    public var maxFrameSize: Int?
    /// Whether HTTP/1.1 is served beside HTTP/2. When false the server speaks HTTP/2 only,
    /// as APNs does: TLS offers only `h2` in ALPN, and an HTTP/1.x request (on a connection
    /// that negotiated no ALPN) is answered 505 in HTTP/1.1, through the handler's
    /// `rejectedRequestResponse` with ``HTTPRequestRejection/Kind/http2Only``, then closed.
    public var acceptsHTTP1: Bool
    /// Counts what each connection holds (`HTTPServer.connectionMemory()`), nghttp2's
    /// allocations included, at the cost of a size lookup per nghttp2 allocation. For tests.
    var countsConnectionMemory = false

    public static let defaultMaxConnections = 10_000
    public static let defaultMaxConcurrentStreams = 1_000
    public static let defaultMaxHeaderListSize = 64 * 1024
    public static let defaultMaxBodySize = 1024 * 1024
    public static let defaultIdleTimeout = Duration.seconds(300)
    public static let defaultRequestReadTimeout = Duration.seconds(30)
    public static let defaultRequestHeadersTimeout = Duration.seconds(10)
    public static let defaultConnectionPrefaceTimeout = Duration.seconds(10)
    public static let defaultHandshakeTimeout = Duration.seconds(10)
    public static let defaultInitialWindowSize = 1024 * 1024
    public static let defaultConnectionWindowSize = 16 * 1024 * 1024
    /// The SETTINGS_MAX_FRAME_SIZE values HTTP/2 allows (RFC 9113 section 6.5.2).
    public static let maxFrameSizes = 16_384...16_777_215
    /// The largest flow-control window HTTP/2 allows, 2^31-1 (RFC 9113 section 6.9.1);
    /// larger windows are sent as this.
    public static let maximumWindowSize = 2_147_483_647

    /// A configuration with every limit at its named default.
    public init(host: String = "127.0.0.1", port: Int = 0, tls: TLSConfiguration? = nil) {
        self.host = host
        self.port = port
        self.tls = tls
        maxConnections = Self.defaultMaxConnections
        maxConnectionsPerSource = nil
        maxConcurrentStreams = Self.defaultMaxConcurrentStreams
        maxHeaderListSize = Self.defaultMaxHeaderListSize
        maxBodySize = Self.defaultMaxBodySize
        idleTimeout = Self.defaultIdleTimeout
        requestReadTimeout = Self.defaultRequestReadTimeout
        requestHeadersTimeout = Self.defaultRequestHeadersTimeout
        connectionPrefaceTimeout = Self.defaultConnectionPrefaceTimeout
        idleGoAwayDebugData = Array("idle timeout".utf8)
        shutdownGoAwayDebugData = []
        handshakeTimeout = Self.defaultHandshakeTimeout
        initialWindowSize = Self.defaultInitialWindowSize
        connectionWindowSize = Self.defaultConnectionWindowSize
        headerTableSize = nil
        maxFrameSize = nil
        acceptsHTTP1 = true
    }
}
