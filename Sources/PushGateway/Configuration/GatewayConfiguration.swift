import Foundation
import HermesContract

/// Everything about the gateway except its secrets: where it listens, which app it pushes
/// for with which key, where APNs is, which auth modes it accepts, and its limits.
///
/// Secrets (the HMAC secret, the capability key) are ``GatewaySecrets``, read only from the
/// environment, never from flags or this configuration's file.
///
/// ```swift
/// var configuration = GatewayConfiguration(topic: "com.example.hermes")
/// configuration.providerKey = GatewayProviderKey(keyID: "ABC123DEFG", teamID: "TEAM000001", path: "AuthKey.p8")
/// configuration.sandboxURL = mock.sandboxURL        // tests point APNs at the mock
/// ```
public struct GatewayConfiguration: Sendable, Hashable {
    /// Address to listen on.
    public var host: String
    /// Port to listen on; 0 picks a free one.
    public var port: Int
    /// TLS certificate chain (PEM); nil serves cleartext HTTP/1.1 and h2c.
    public var tlsCertificatePath: String?
    /// TLS private key (PEM), with ``tlsCertificatePath``.
    public var tlsPrivateKeyPath: String?
    /// The app's bundle id: `apns-topic` of every push.
    public var topic: String
    /// The `.p8` key provider tokens are signed with; required to start.
    public var providerKey: GatewayProviderKey?
    /// APNs production base URL.
    public var productionURL: String
    /// APNs sandbox (development) base URL.
    public var sandboxURL: String
    /// CA certificates (PEM) to trust for APNs; nil uses the system's roots.
    public var apnsCAPath: String?
    /// The authorization modes `/push` accepts; `/register` answers only with `capability` on.
    public var authModes: Set<GatewayAuthMode>
    /// Per device token.
    public var perDeviceRateLimit: GatewayRateLimit
    /// For the whole gateway's pushes.
    public var totalRateLimit: GatewayRateLimit
    /// For `/register`, which is open to anyone: a budget of its own, so registrations never
    /// use up the pushes'.
    public var registerRateLimit: GatewayRateLimit
    /// Each client's requests, `/push` and `/register` together, counted by its address
    /// (`ClientSource`: IPv4, or IPv6 /64) before anything else is checked: one busy or
    /// hostile source cannot use up ``totalRateLimit`` or ``registerRateLimit`` for the others.
    public var perSourceRateLimit: GatewayRateLimit
    /// How many times one push is tried against APNs (5xx, 429 and lost connections only).
    public var apnsAttempts: Int
    /// The longest the APNs leg of one push may take, every attempt and backoff included
    /// (``defaultAPNsTimeout``, within ``allowedAPNsTimeoutMilliseconds``). It must end
    /// before the plugin's own 5 s timeout: when it runs out, the push is answered with a
    /// 5xx (`apns_unavailable`) the plugin retries, instead of the plugin giving up on its
    /// side while the gateway still waits.
    public var apnsTimeout: Duration
    /// Largest request body read (256 to 65536, default 4096): bigger ones get 413 from the
    /// transport, and `/push` and `/register` validate against this limit too, not the
    /// contract's default.
    public var maximumBodySize: Int
    /// Open client connections at most (1 to 100,000, default 1,000); the listener closes
    /// any beyond it at once after accepting it.
    public var maxConnections: Int
    /// Client connections one source (`ClientSource`) may hold open at once (1 to 100,000,
    /// default 100): beyond it the listener closes the connection at once after accepting
    /// it, so one source cannot hold all of ``maxConnections``. Behind a proxy every client
    /// has the proxy's address: raise it to ``maxConnections`` there.
    public var maxConnectionsPerSource: Int
    /// SETTINGS_MAX_CONCURRENT_STREAMS of each HTTP/2 client connection (1 to 1,000, default
    /// 100): a plugin sends a push at a time, and with ``maxConnections`` and
    /// ``maximumBodySize`` it bounds what clients can make the gateway hold.
    public var maxConcurrentStreams: Int
    /// How long a request may take to arrive whole, headers and body, from its first byte
    /// (1 to 300 s, default 10 s; the plugin itself gives up after 5 s). Past it the request
    /// is answered 408 `request_timeout` and the connection closes (HTTP/1.1) or gets GOAWAY
    /// (HTTP/2). A push read whole waits for APNs as long as that takes.
    public var requestReadTimeout: Duration
    /// Event-loop threads, each serving HTTP and running its own APNs connections: a push
    /// is forwarded on a connection on the loop its request came in on, so it never changes
    /// threads, whatever the number. One per core by default.
    public var eventLoopThreads: Int

    public static let defaultHost = "127.0.0.1"
    public static let defaultPort = 8088
    /// Apple's production host.
    public static let appleProductionURL = "https://api.push.apple.com"
    /// Apple's sandbox host.
    public static let appleSandboxURL = "https://api.sandbox.push.apple.com"
    public static let defaultAPNsAttempts = 3
    public static let maximumAPNsAttempts = 10
    /// 4 s: the contract's plugin waits 5 s for an answer, so a second is left for the
    /// gateway's own work and the network between them.
    public static let defaultAPNsTimeout = Duration.seconds(4)
    /// The APNs timeouts allowed, in milliseconds (as the file and the flag give them).
    public static let allowedAPNsTimeoutMilliseconds = 100...60_000
    /// One per core, up to `maximumEventLoopThreads`.
    public static let defaultEventLoopThreads = min(max(1, ProcessInfo.processInfo.activeProcessorCount), maximumEventLoopThreads)
    public static let maximumEventLoopThreads = 64
    public static let defaultMaxConnections = 1_000
    public static let maxConnectionsRange = 1...100_000
    public static let defaultMaxConnectionsPerSource = 100
    public static let defaultMaxConcurrentStreams = 100
    public static let maxConcurrentStreamsRange = 1...1_000
    public static let defaultRequestReadTimeout = Duration.seconds(10)
    /// The allowed ``requestReadTimeout``, in whole seconds.
    public static let requestReadTimeoutSecondsRange = 1...300

    /// A configuration for `topic` with every other setting at its default: Apple's
    /// endpoints, both auth modes, the default rate limits, a 4 KB body limit, 1,000
    /// connections of 100 streams, 10 s to send a request.
    public init(topic: String) {
        host = Self.defaultHost
        port = Self.defaultPort
        self.topic = topic
        productionURL = Self.appleProductionURL
        sandboxURL = Self.appleSandboxURL
        authModes = Set(GatewayAuthMode.allCases)
        perDeviceRateLimit = .defaultPerDevice
        totalRateLimit = .defaultTotal
        registerRateLimit = .defaultRegister
        perSourceRateLimit = .defaultPerSource
        apnsAttempts = Self.defaultAPNsAttempts
        apnsTimeout = Self.defaultAPNsTimeout
        maximumBodySize = HermesPushRequest.maximumBodySize
        eventLoopThreads = Self.defaultEventLoopThreads
        maxConnections = Self.defaultMaxConnections
        maxConnectionsPerSource = Self.defaultMaxConnectionsPerSource
        maxConcurrentStreams = Self.defaultMaxConcurrentStreams
        requestReadTimeout = Self.defaultRequestReadTimeout
    }

    /// The base URL for `environment`.
    public func url(for environment: HermesAPNsEnvironment) -> String {
        environment == .production ? productionURL : sandboxURL
    }

    /// Checks that the gateway can serve with these settings and `secrets`. (The provider
    /// key is checked where it is used: by the APNs delivery that signs with it.)
    ///
    /// - Throws: ``GatewayConfigurationError`` naming the first setting that is missing or wrong.
    public func validate(secrets: GatewaySecrets) throws(GatewayConfigurationError) {
        guard !topic.isEmpty else { throw GatewayConfigurationError("topic: set the app's bundle id (--topic BUNDLE_ID)") }
        guard (0...65535).contains(port) else { throw GatewayConfigurationError("port: expected 0 to 65535, got \(port)") }
        guard (tlsCertificatePath == nil) == (tlsPrivateKeyPath == nil) else {
            throw GatewayConfigurationError("tls: give both a certificate (--tls-cert) and a key (--tls-key), or neither")
        }
        guard !authModes.isEmpty else { throw GatewayConfigurationError("auth modes: enable at least one of hmac, capability") }
        if authModes.contains(.hmac), secrets.hmacSecret == nil {
            throw GatewayConfigurationError(
                "hmac mode is on but no secret is set: export \(GatewaySecrets.hmacSecretVariable) or \(GatewaySecrets.hmacSecretVariable)_FILE")
        }
        if authModes.contains(.capability), secrets.capabilityKey == nil {
            throw GatewayConfigurationError(
                "capability mode is on but no key is set: export \(GatewaySecrets.capabilityKeyVariable) or \(GatewaySecrets.capabilityKeyVariable)_FILE")
        }
        if let providerKey, providerKey.path == nil, secrets.providerKey == nil {
            throw GatewayConfigurationError("auth key: \(providerKey.keyID):\(providerKey.teamID) names no .p8 file, so the key is read from the "
                + "environment, and none is set: export \(GatewaySecrets.providerKeyVariable) or \(GatewaySecrets.providerKeyVariable)_FILE")
        }
        if providerKey?.path != nil, secrets.providerKey != nil {
            throw GatewayConfigurationError("auth key: the .p8 is given twice, as a path and in \(GatewaySecrets.providerKeyVariable); give one")
        }
        guard (1...Self.maximumAPNsAttempts).contains(apnsAttempts) else {
            throw GatewayConfigurationError("apns attempts: expected 1 to \(Self.maximumAPNsAttempts), got \(apnsAttempts)")
        }
        let timeouts = Self.allowedAPNsTimeoutMilliseconds
        guard (Duration.milliseconds(timeouts.lowerBound)...Duration.milliseconds(timeouts.upperBound)).contains(apnsTimeout) else {
            throw GatewayConfigurationError("apns timeout: expected \(timeouts.lowerBound) to \(timeouts.upperBound) ms, got \(apnsTimeout)")
        }
        guard (1...Self.maximumEventLoopThreads).contains(eventLoopThreads) else {
            throw GatewayConfigurationError("threads: expected 1 to \(Self.maximumEventLoopThreads), got \(eventLoopThreads)")
        }
        guard (256...65_536).contains(maximumBodySize) else {
            throw GatewayConfigurationError("maximum body size: expected 256 to 65536 bytes, got \(maximumBodySize)")
        }
        guard Self.maxConnectionsRange.contains(maxConnections) else {
            throw GatewayConfigurationError("max connections: expected 1 to 100000, got \(maxConnections)")
        }
        guard Self.maxConnectionsRange.contains(maxConnectionsPerSource) else {
            throw GatewayConfigurationError("max connections per source: expected 1 to 100000, got \(maxConnectionsPerSource)")
        }
        guard Self.maxConcurrentStreamsRange.contains(maxConcurrentStreams) else {
            throw GatewayConfigurationError("max concurrent streams: expected 1 to 1000, got \(maxConcurrentStreams)")
        }
        guard requestReadTimeout > .zero, requestReadTimeout <= .seconds(Self.requestReadTimeoutSecondsRange.upperBound) else {
            throw GatewayConfigurationError("request read timeout: expected more than 0 and at most 300 s, got \(requestReadTimeout)")
        }
        for (name, url) in [("apns production", productionURL), ("apns sandbox", sandboxURL)] {
            guard url.hasPrefix("https://") || url.hasPrefix("http://") else {
                throw GatewayConfigurationError("\(name): expected an http:// or https:// URL, got \"\(url)\"")
            }
        }
    }
}
