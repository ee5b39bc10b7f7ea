/// Where an `HTTP2Client` connects and how: TLS or cleartext HTTP/2, timeouts and flow control.
///
/// ```swift
/// var configuration = HTTP2ClientConfiguration(
///     host: "api.push.apple.com", port: 443,
///     tls: .makeClientConfiguration(trustRootsPath: "/etc/ssl/certs/ca-certificates.crt"))
/// configuration.requestTimeout = .seconds(10)
/// ```
public struct HTTP2ClientConfiguration: Sendable, Hashable {
    /// The server's host name or IPv4/IPv6 literal (`::1` or `[::1]`).
    public var host: String
    /// The server's TCP port.
    public var port: Int
    /// TLS settings, or nil for cleartext HTTP/2 by prior knowledge (h2c).
    ///
    /// The client verifies the server as `tls.peerVerification` says; the default from
    /// `TLSConfiguration.makeClientConfiguration(trustRootsPath:)` requires a valid chain
    /// and a certificate that matches `serverName`.
    public var tls: TLSConfiguration?
    /// The name sent in SNI and checked against the server's certificate; nil uses `host`.
    ///
    /// IP literals are checked against the certificate's IP addresses and are not sent in SNI.
    public var serverName: String?
    /// Whether to offer ALPN `h2` over TLS and require the server to select it.
    ///
    /// Turn it off only for servers that speak HTTP/2 over TLS by prior knowledge and
    /// ignore or reject ALPN; the client then offers no ALPN and checks nothing.
    public var negotiatesALPN: Bool
    /// The TCP connect plus the TLS handshake must finish within this.
    public var connectTimeout: Duration
    /// The timeout of requests that set none themselves; nil lets them wait forever.
    public var requestTimeout: Duration?
    /// How long a PING (`HTTP2Client.ping()`) may wait for the server's acknowledgement; nil
    /// waits forever. When it runs out, the PING fails with `.timedOut(.ping, ...)` and the
    /// connection is closed as dead: its requests fail with `.connectionClosed`, as if it
    /// had been lost, and later ones are refused.
    public var pingTimeout: Duration?
    /// HTTP/2 flow-control window the client grants per stream; the connection window is larger.
    public var initialWindowSize: Int
    /// How many streams the client opens before the server's first SETTINGS frame says how
    /// many it allows. RFC 9113 suggests 100; APNs allows 1 until a request carries a
    /// valid provider token, so an APNs client sets 1 and the rest wait for the SETTINGS.
    public var initialPeerMaxConcurrentStreams: Int
    /// Request fields whose values change with every request, such as a per-request id
    /// (names in any case). They are sent as never-indexed literals, which neither side adds
    /// to its HPACK table (RFC 7541 section 6.2.3): indexing a value that never repeats only
    /// evicts the fields that do, such as a long `authorization`, which then travel in full again.
    public var unindexedFieldNames: [String]
    /// How often one request the server refused with REFUSED_STREAM (unprocessed, RFC 9113
    /// section 8.7) is sent again on this connection before the refusal reaches the caller as
    /// `HTTPClientError.streamReset(errorCode: .refusedStream)`; 0 reports the first refusal.
    ///
    /// A caller with its own resend policy (APNsClient, which resends on another connection)
    /// sets 0, so the two layers do not multiply.
    public var maximumRefusedStreamResends: Int

    /// 10 seconds.
    public static let defaultConnectTimeout = Duration.seconds(10)
    /// 30 seconds.
    public static let defaultRequestTimeout = Duration.seconds(30)
    /// 20 seconds: far beyond any healthy round trip, well before a request timeout.
    public static let defaultPingTimeout = Duration.seconds(20)
    /// 1 MiB, so typical responses arrive without waiting for WINDOW_UPDATE.
    public static let defaultInitialWindowSize = 1024 * 1024
    /// 100, the value RFC 9113 section 5.1.2 recommends assuming.
    public static let defaultInitialPeerMaxConcurrentStreams = 100
    /// 8: enough for a server that lowered its stream limit while requests were in flight.
    public static let defaultMaximumRefusedStreamResends = 8

    /// A configuration with ALPN on and every timeout and window at its named default.
    ///
    /// - Parameters:
    ///   - host: host name or IP literal of the server.
    ///   - port: TCP port of the server.
    ///   - tls: TLS settings, or nil for cleartext h2c.
    public init(host: String, port: Int, tls: TLSConfiguration? = nil) {
        self.host = host
        self.port = port
        self.tls = tls
        serverName = nil
        negotiatesALPN = true
        connectTimeout = Self.defaultConnectTimeout
        requestTimeout = Self.defaultRequestTimeout
        pingTimeout = Self.defaultPingTimeout
        initialWindowSize = Self.defaultInitialWindowSize
        initialPeerMaxConcurrentStreams = Self.defaultInitialPeerMaxConcurrentStreams
        unindexedFieldNames = []
        maximumRefusedStreamResends = Self.defaultMaximumRefusedStreamResends
    }

    /// The `:authority` of requests that set none: the host, plus the port unless it is the scheme's default.
    var defaultAuthority: String {
        let bareHost = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let printedHost = bareHost.contains(":") ? "[\(bareHost)]" : bareHost
        let defaultPort = tls == nil ? 80 : 443
        return port == defaultPort ? printedHost : "\(printedHost):\(port)"
    }

    /// The name used for SNI and certificate checks.
    var effectiveServerName: String {
        let name = serverName ?? host
        return name.hasPrefix("[") && name.hasSuffix("]") ? String(name.dropFirst().dropLast()) : name
    }
}
