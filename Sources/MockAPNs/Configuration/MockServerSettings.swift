import Foundation
import HTTPTransport
import StrictJSON

/// How `apns-mock` listens: addresses, TLS, stream limits, timeouts and capture. The CLI
/// has flags for the addresses, ports, TLS files and capture file, which override the
/// configuration file (docs/configuration.md).
///
/// Every default is a named constant; ``makeDefault(certsDirectory:)`` spells them out.
public struct MockServerSettings: Sendable, Hashable {
    /// Address to bind: an IPv4 or IPv6 literal or a host name. `::` listens on both families.
    public var host: String
    /// Port of the production endpoint (`api.push.apple.com`); 0 picks a free port.
    public var productionPort: Int
    /// Port of the sandbox endpoint (`api.sandbox.push.apple.com`); 0 picks a free port.
    public var sandboxPort: Int
    /// Port of the control API (capture, registry and faults over HTTP); 0 picks a free port.
    public var controlPort: Int
    /// Whether the APNs endpoints speak TLS; off means HTTP/2 by prior knowledge (h2c).
    public var tlsEnabled: Bool
    /// The server certificate chain (PEM), used when TLS is on.
    public var certificatePath: String
    /// The server private key (PEM), used when TLS is on.
    public var privateKeyPath: String
    /// CA certificates (PEM) that client certificates must chain to. Setting it turns on
    /// certificate-based authentication; nil means token authentication only.
    public var clientCAPath: String?
    /// The SETTINGS_MAX_CONCURRENT_STREAMS an authenticated connection is raised to. Every
    /// connection starts at 1: a token connection is raised after its first valid token, a
    /// certificate connection as soon as it opens.
    public var maxConcurrentStreams: Int
    /// Whether a rejected push lowers the connection's stream limit to 1 until a push
    /// succeeds, as APNs does.
    public var dropsStreamLimitAfterRejection: Bool
    /// SETTINGS_HEADER_TABLE_SIZE the APNs listeners announce: the HPACK dynamic table, in
    /// bytes, they decode request headers with.
    public var headerTableSize: Int
    /// SETTINGS_INITIAL_WINDOW_SIZE the APNs listeners announce: how many bytes of one push's
    /// body a client may send before the mock acknowledges them. The connection's window, all
    /// streams together, is ``connectionWindowSize`` whatever this is.
    public var initialWindowSize: Int
    /// SETTINGS_MAX_FRAME_SIZE the APNs listeners announce: the largest frame payload they accept.
    public var maxFrameSize: Int
    /// SETTINGS_MAX_HEADER_LIST_SIZE the APNs listeners announce and enforce, in RFC 9113's
    /// measure (name + value + 32 bytes per field). A push over it is answered 431 with
    /// `{"reason":"RequestHeaderFieldsTooLarge"}` and captured (`docs/fidelity.md`).
    public var maxHeaderListSize: Int
    /// A connection idle this long is closed.
    public var idleTimeout: Duration
    /// A push must arrive whole (headers and body) within this of its HEADERS frame; past it
    /// the stream is answered 408 `{"reason":"RequestTimeout"}` and the connection gets GOAWAY
    /// (`docs/fidelity.md`). A push read whole is never cut, however long a delay rule holds it.
    public var requestReadTimeout: Duration
    /// A push's header block (HEADERS and any CONTINUATION) must arrive within this of its
    /// HEADERS frame; past it the push is answered as past ``requestReadTimeout``.
    public var requestHeadersTimeout: Duration = defaultRequestHeadersTimeout
    /// A new connection must send the HTTP/2 preface and its first SETTINGS frame within this
    /// of the TLS handshake (of accept, without TLS), or it gets GOAWAY and is closed. Once
    /// they are in, an idle connection stays until ``idleTimeout``, as providers' pre-warmed
    /// connections do.
    public var connectionPrefaceTimeout: Duration = defaultConnectionPrefaceTimeout
    /// Connections each APNs listener holds at once; the next is closed right after accept,
    /// with no TLS handshake (and counted in `/metrics`).
    public var maxConnections: Int = defaultMaxConnections
    /// Rejected pushes a connection may have before the mock ends it with GOAWAY and the
    /// reason of the push that used the budget up, as APNs drops connections that pile up
    /// errors (docs/fidelity.md). 410 answers do not count. nil (the default): no budget.
    public var connectionErrorBudget: Int?
    /// Where the capture is appended as JSON lines; nil keeps it in memory only.
    public var captureFilePath: String?
    /// How many recent pushes the in-memory capture keeps.
    public var captureRingSize: Int
    /// The bearer token every control-API request but `GET /healthz` must carry
    /// (`authorization: Bearer <token>`); nil leaves the control API open to whoever reaches
    /// it. A secret: set by the CLI from a flag, a file or the environment, never read from
    /// or written to the configuration file.
    public var controlAccessToken: String?
    /// Whether each batch of capture lines is followed by `fdatasync`, so that an answered
    /// push survives power loss, not only a crash of the mock (off: `write(2)` suffices).
    public var captureSyncsEachBatch = false
    /// Capture bytes that may wait for the disk before a connection that adds more stops
    /// reading until its lines are written: what bounds memory when the disk is slow.
    public var captureMaximumPendingBytes = CaptureFileWriter.defaultMaximumPendingBytes
    /// Whether a rejection's answer also carries the mock's sentence of why, as the header
    /// ``APNsEndpoint/explanationHeaderName``, for clients whose test output shows headers
    /// but not the capture. Off by default: APNs sends no such header.
    public var explanationHeader = false
    /// Host names the control API answers besides its own address, `localhost` and IP
    /// addresses: the names a container network or a proxy reaches it by (`apns-mock`,
    /// `docker`). A request whose `Host` (or `:authority`) names another is refused, which
    /// stops DNS rebinding from a browser tab (docs/control-api.md, "Security").
    public var controlAllowedHosts: [String] = []

    /// `127.0.0.1`: reachable from the machine only, the safe choice for a test tool.
    public static let defaultHost = "127.0.0.1"
    /// 2197, the alternative port APNs itself serves on.
    public static let defaultProductionPort = 2197
    /// The port after production's.
    public static let defaultSandboxPort = 2198
    /// The port after sandbox's.
    public static let defaultControlPort = 2199
    /// TLS on, as APNs requires.
    public static let defaultTLSEnabled = true
    /// 1000, the limit APNs has announced since 2018.
    public static let defaultMaxConcurrentStreams = 1000
    /// On, as APNs behaves.
    public static let defaultDropsStreamLimitAfterRejection = true
    /// 4096, what APNs announces (and HTTP/2's default).
    public static let defaultHeaderTableSize = 4096
    /// 65,535, what APNs announces (and HTTP/2's default); a 5120-byte VoIP payload fits in it.
    public static let defaultInitialWindowSize = 65_535
    /// 16,384, what APNs announces (and HTTP/2's default).
    public static let defaultMaxFrameSize = 16_384
    /// 8000, what APNs has announced since at least 2016.
    public static let defaultMaxHeaderListSize = 8000
    /// 16 MiB: the APNs listeners' connection-level flow-control window, not a setting.
    /// APNs' own is not known; this one lets hundreds of streams each send a full 5120-byte
    /// payload at once without waiting for a WINDOW_UPDATE.
    public static let connectionWindowSize = 16 * 1024 * 1024
    /// One hour: APNs keeps idle connections at least that long (Apple suggests a PING
    /// after an hour idle), and clients should not see the mock drop them sooner.
    public static let defaultIdleTimeout = Duration.seconds(3600)
    /// The transport's 30 s: far more than any client needs to send a push of at most 5120 bytes.
    public static let defaultRequestReadTimeout = HTTPServerConfiguration.defaultRequestReadTimeout
    /// The transport's 10 s: a push's headers come in one frame.
    public static let defaultRequestHeadersTimeout = HTTPServerConfiguration.defaultRequestHeadersTimeout
    /// The transport's 10 s: a client sends its preface and SETTINGS right after the handshake.
    public static let defaultConnectionPrefaceTimeout = HTTPServerConfiguration.defaultConnectionPrefaceTimeout
    /// The transport's 10,000 per listener.
    public static let defaultMaxConnections = HTTPServerConfiguration.defaultMaxConnections
    /// The timeouts a setting can take, in seconds: 1 ms to one day.
    public static let timeoutSeconds = 0.001...86_400.0
    /// 10,000 pushes.
    public static let defaultCaptureRingSize = 10_000
    /// The largest stream limit HTTP/2 can announce.
    public static let maximumConcurrentStreams = Int(Int32.max)
    /// The header table sizes a SETTINGS value can carry.
    public static let headerTableSizes = 0...Int(UInt32.max)
    /// The stream windows HTTP/2 allows, but at least 1 byte: a window of 0 leaves every
    /// push's body waiting for a WINDOW_UPDATE the mock only sends once it has read some of it.
    public static let initialWindowSizes = 1...HTTPServerConfiguration.maximumWindowSize
    /// The frame sizes HTTP/2 allows.
    public static let maxFrameSizes = HTTPServerConfiguration.maxFrameSizes
    /// The header list limits a SETTINGS value can carry.
    public static let maxHeaderListSizes = 1...Int(UInt32.max)

    /// Settings with every default, taking the server certificate and key from `certsDirectory`
    /// (`server.pem`, `server.key`).
    public static func makeDefault(certsDirectory: String = "certs") -> MockServerSettings {
        MockServerSettings(
            host: defaultHost, productionPort: defaultProductionPort, sandboxPort: defaultSandboxPort,
            controlPort: defaultControlPort, tlsEnabled: defaultTLSEnabled,
            certificatePath: ConfigurationPath.join(certsDirectory, "server.pem"),
            privateKeyPath: ConfigurationPath.join(certsDirectory, "server.key"),
            clientCAPath: nil, maxConcurrentStreams: defaultMaxConcurrentStreams,
            dropsStreamLimitAfterRejection: defaultDropsStreamLimitAfterRejection,
            idleTimeout: defaultIdleTimeout, captureFilePath: nil, captureRingSize: defaultCaptureRingSize,
            headerTableSize: defaultHeaderTableSize, initialWindowSize: defaultInitialWindowSize,
            maxFrameSize: defaultMaxFrameSize, maxHeaderListSize: defaultMaxHeaderListSize)
    }

    /// Creates settings; ``makeDefault(certsDirectory:)`` is usually the better start.
    ///
    /// The HTTP/2 settings the APNs listeners announce default to what APNs announces.
    public init(
        host: String, productionPort: Int, sandboxPort: Int, controlPort: Int, tlsEnabled: Bool,
        certificatePath: String, privateKeyPath: String, clientCAPath: String?, maxConcurrentStreams: Int,
        dropsStreamLimitAfterRejection: Bool, idleTimeout: Duration, captureFilePath: String?, captureRingSize: Int,
        headerTableSize: Int = defaultHeaderTableSize, initialWindowSize: Int = defaultInitialWindowSize,
        maxFrameSize: Int = defaultMaxFrameSize, maxHeaderListSize: Int = defaultMaxHeaderListSize,
        requestReadTimeout: Duration = defaultRequestReadTimeout
    ) {
        self.host = host
        self.productionPort = productionPort
        self.sandboxPort = sandboxPort
        self.controlPort = controlPort
        self.tlsEnabled = tlsEnabled
        self.certificatePath = certificatePath
        self.privateKeyPath = privateKeyPath
        self.clientCAPath = clientCAPath
        self.maxConcurrentStreams = maxConcurrentStreams
        self.dropsStreamLimitAfterRejection = dropsStreamLimitAfterRejection
        self.idleTimeout = idleTimeout
        self.captureFilePath = captureFilePath
        self.captureRingSize = captureRingSize
        self.headerTableSize = headerTableSize
        self.initialWindowSize = initialWindowSize
        self.maxFrameSize = maxFrameSize
        self.maxHeaderListSize = maxHeaderListSize
        self.requestReadTimeout = requestReadTimeout
    }

    /// The lengths a control-API access token may have, in bytes: short ones are guessed.
    public static let controlAccessTokenLengths = 16...4096

    /// Checks ranges: ports 0-65535 and distinct unless 0, a positive stream limit, idle
    /// timeout and request read timeout, a ring size of at least 0, a non-empty host, and HTTP/2 settings HTTP/2
    /// can carry (``headerTableSizes``, ``initialWindowSizes``, ``maxFrameSizes``,
    /// ``maxHeaderListSizes``).
    ///
    /// - Throws: ``ConfigurationError`` naming the field, such as `server.sandbox_port`.
    public func validate() throws(ConfigurationError) {
        try validate(path: ServerSettingsKey.section)
    }

    /// What is wrong with `host` when it looks like an address literal but is not one
    /// (`999.1.1.1`); names are left to the listener, which resolves them.
    static func addressProblem(_ host: String) -> String? {
        let isIPv4Like = host.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") }
        guard isIPv4Like || host.contains(":"), SocketAddress(literal: host, port: 0) == nil else { return nil }
        return isIPv4Like ? "expected an IPv4 address such as 127.0.0.1, found \"\(host)\""
            : "expected an IPv6 address such as ::1, found \"\(host)\""
    }

    func validate(path: String) throws(ConfigurationError) {
        func fail(_ field: String, _ message: String) -> ConfigurationError {
            ConfigurationError(.invalidValue, path: JSONField.path(path, field), message)
        }
        guard !host.isEmpty else { throw fail(ServerSettingsKey.host, "expected a host name or address, found an empty string") }
        if let problem = Self.addressProblem(host) { throw fail(ServerSettingsKey.host, problem) }
        var files: [(field: String, path: String)] = []
        if tlsEnabled { files += [(ServerSettingsKey.certificate, certificatePath), (ServerSettingsKey.privateKey, privateKeyPath)] }
        if tlsEnabled, let clientCAPath { files.append((ServerSettingsKey.clientCA, clientCAPath)) }
        for (field, file) in files {
            if let problem = ConfigurationFileCheck.problemReading(file) { throw fail(field, "cannot read '\(file)': \(problem)") }
        }
        if let captureFilePath, let problem = ConfigurationFileCheck.problemWriting(captureFilePath) {
            throw fail(ServerSettingsKey.captureFile, "cannot write '\(captureFilePath)': \(problem)")
        }
        let ports = [
            (ServerSettingsKey.productionPort, productionPort), (ServerSettingsKey.sandboxPort, sandboxPort),
            (ServerSettingsKey.controlPort, controlPort),
        ]
        for (index, (field, port)) in ports.enumerated() {
            guard (0...65535).contains(port) else { throw fail(field, "expected an integer 0-65535, found \(port)") }
            if port != 0, let clash = ports[..<index].first(where: { $0.1 == port }) {
                throw fail(field, "port \(port) is already used by \(clash.0)")
            }
        }
        guard (1...Self.maximumConcurrentStreams).contains(maxConcurrentStreams) else {
            throw fail(ServerSettingsKey.maxConcurrentStreams, "expected an integer of at least 1, found \(maxConcurrentStreams)")
        }
        guard idleTimeout > .zero else {
            throw fail(ServerSettingsKey.idleTimeoutSeconds, "expected a positive number, found \(idleTimeout)")
        }
        let timeouts = [
            (ServerSettingsKey.requestReadTimeoutSeconds, requestReadTimeout),
            (ServerSettingsKey.requestHeadersTimeoutSeconds, requestHeadersTimeout),
            (ServerSettingsKey.connectionPrefaceTimeoutSeconds, connectionPrefaceTimeout),
        ]
        for (field, timeout) in timeouts where timeout <= .zero {
            throw fail(field, "expected a positive number, found \(timeout)")
        }
        guard maxConnections >= 1 else {
            throw fail(ServerSettingsKey.maxConnections, "expected an integer of at least 1, found \(maxConnections)")
        }
        if let connectionErrorBudget, connectionErrorBudget < 1 {
            throw fail(ServerSettingsKey.connectionErrorBudget, "expected an integer of at least 1, found \(connectionErrorBudget)")
        }
        guard captureRingSize >= 0 else {
            throw fail(ServerSettingsKey.captureRingSize, "expected an integer of at least 0, found \(captureRingSize)")
        }
        if let controlAccessToken, !Self.controlAccessTokenLengths.contains(controlAccessToken.utf8.count)
            || !controlAccessToken.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) {
            throw fail(ServerSettingsKey.controlToken, "expected \(Self.controlAccessTokenLengths.lowerBound) to "
                + "\(Self.controlAccessTokenLengths.upperBound) visible ASCII characters (e.g. `openssl rand -hex 32`), "
                + "found \(controlAccessToken.utf8.count) bytes")
        }
        for name in controlAllowedHosts where !ControlHostCheck.isValidName(name) {
            throw fail(ServerSettingsKey.controlAllowedHosts, "expected a host name such as apns-mock (no port, scheme or "
                + "spaces), found \(JSONValue.string(name))")
        }
        let http2Settings = [
            (ServerSettingsKey.headerTableSize, headerTableSize, Self.headerTableSizes),
            (ServerSettingsKey.initialWindowSize, initialWindowSize, Self.initialWindowSizes),
            (ServerSettingsKey.maxFrameSize, maxFrameSize, Self.maxFrameSizes),
            (ServerSettingsKey.maxHeaderListSize, maxHeaderListSize, Self.maxHeaderListSizes),
        ]
        for (field, value, range) in http2Settings where !range.contains(value) {
            throw fail(field, "expected an integer \(range.lowerBound)-\(range.upperBound), found \(value)")
        }
    }
}
