import Foundation
import JWTVerify

/// Everything an `APNsClient` needs: credentials, destinations, trust, token refresh,
/// retries and connection-pool limits. Every default is a named constant.
///
/// ```swift
/// var configuration = APNsClientConfiguration(
///     authentication: try .token(p8Path: "certs/AuthKey_ABC123DEFG.p8", keyID: "ABC123DEFG", teamID: "TEAM000001"))
/// configuration.sandbox = try APNsDestination(url: "https://127.0.0.1:2198")   // the mock
/// configuration.trustRootsPath = "certs/ca.pem"
/// ```
public struct APNsClientConfiguration: Sendable {
    /// Provider token or client certificate.
    public var authentication: APNsAuthentication
    /// Where production pushes go; Apple's `api.push.apple.com` by default.
    public var production: APNsDestination
    /// Where sandbox (development) pushes go; Apple's `api.sandbox.push.apple.com` by default.
    public var sandbox: APNsDestination
    /// Where production's channel management requests go (create, read, delete, list);
    /// Apple's `api-manage-broadcast.push.apple.com:2196` by default. Broadcasts go to `production`.
    public var channelManagementProduction: APNsDestination
    /// Where the sandbox's channel management requests go; Apple's
    /// `api-manage-broadcast.sandbox.push.apple.com:2195` by default. Broadcasts go to `sandbox`.
    public var channelManagementSandbox: APNsDestination
    /// PEM file of the CAs the server's certificate must chain to; nil uses the system's.
    public var trustRootsPath: String?
    /// How long a provider token is reused before a new one is signed: 20 to 60 minutes,
    /// as Apple requires (sooner is `TooManyProviderTokenUpdates`, later `ExpiredProviderToken`).
    public var tokenRefreshInterval: Duration
    /// Which failures are retried, how often, and how long to wait.
    public var retryPolicy: APNsRetryPolicy
    /// Connections per environment, at most; more are opened only when every open one is full.
    public var maximumConnectionsPerEnvironment: Int
    /// Streams per connection the pool fills a connection to before it opens another: a
    /// preference for spreading pushes, not a cap. The pool counts a connection as full at
    /// this or the server's SETTINGS_MAX_CONCURRENT_STREAMS, whichever is lower (APNs: 1
    /// before the first valid token). When every connection is full and the pool has
    /// `maximumConnectionsPerEnvironment` of them, a push still goes to the least busy one,
    /// and the transport sends it as soon as the server's limit allows, so a connection may
    /// then run more streams than this. Only the server's limit is never exceeded.
    public var maximumStreamsPerConnection: Int
    /// A connection with no push for this long gets an HTTP/2 PING, which keeps it open and
    /// finds a dead one before a push does; nil sends none.
    public var idlePingInterval: Duration?
    /// How long an idle PING may wait for its acknowledgement. A connection whose PING goes
    /// unanswered this long is taken as dead (a black-holed one answers nothing): it is closed
    /// and leaves the pool, its pushes in flight fail as on a lost connection (and are retried
    /// as the policy allows), and later pushes go to a new connection.
    public var pingTimeout: Duration
    /// TCP connect plus TLS handshake.
    public var connectTimeout: Duration
    /// One attempt of one push, from hand-over to the whole answer.
    public var requestTimeout: Duration
    /// The longest one push may take in all, from `send` to its outcome: every attempt,
    /// backoff and resend included. An attempt gets what is left of it as its timeout when
    /// that is shorter than `requestTimeout`, a backoff that would end past it is not
    /// waited, and the push then fails with `APNsClientError.sendTimedOut`. For a caller
    /// that itself gives up after a while (a server answering a client with a timeout),
    /// so that it answers before then. Nil (the default): each attempt is bounded by
    /// `requestTimeout`, and the whole push by the retry policy only.
    public var sendTimeout: Duration?
    /// Threads running the connections' event loops.
    public var eventLoopThreads: Int

    /// 50 minutes, as pushy does: well inside Apple's 20-60 minute window.
    public static let defaultTokenRefreshInterval = Duration.seconds(50 * 60)
    /// The range Apple allows for token refreshes.
    public static let allowedTokenRefreshIntervals = Duration.seconds(20 * 60)...Duration.seconds(60 * 60)
    /// 4 connections per environment.
    public static let defaultMaximumConnectionsPerEnvironment = 4
    /// 1000 streams, what APNs has announced since 2018.
    public static let defaultMaximumStreamsPerConnection = 1000
    /// 10 minutes: Apple suggests a PING within an hour of idleness; shorter also catches
    /// middleboxes that drop quiet connections.
    public static let defaultIdlePingInterval = Duration.seconds(600)
    /// 20 seconds: far beyond a healthy round trip, and before a push there waits its request timeout.
    public static let defaultPingTimeout = Duration.seconds(20)
    /// 10 seconds.
    public static let defaultConnectTimeout = Duration.seconds(10)
    /// 30 seconds.
    public static let defaultRequestTimeout = Duration.seconds(30)
    /// 1 thread: one loop drives many thousand pushes a second.
    public static let defaultEventLoopThreads = 1

    /// A configuration for Apple's servers with every other setting at its default.
    ///
    /// - Parameter authentication: provider token or client certificate.
    public init(authentication: APNsAuthentication) {
        self.authentication = authentication
        production = .production
        sandbox = .sandbox
        channelManagementProduction = .channelManagementProduction
        channelManagementSandbox = .channelManagementSandbox
        trustRootsPath = nil
        tokenRefreshInterval = Self.defaultTokenRefreshInterval
        retryPolicy = .default
        maximumConnectionsPerEnvironment = Self.defaultMaximumConnectionsPerEnvironment
        maximumStreamsPerConnection = Self.defaultMaximumStreamsPerConnection
        idlePingInterval = Self.defaultIdlePingInterval
        pingTimeout = Self.defaultPingTimeout
        connectTimeout = Self.defaultConnectTimeout
        requestTimeout = Self.defaultRequestTimeout
        sendTimeout = nil
        eventLoopThreads = Self.defaultEventLoopThreads
    }

    /// The destination of `environment`.
    public func destination(for environment: APNsEnvironment) -> APNsDestination {
        environment == .production ? production : sandbox
    }

    /// The channel management destination of `environment`.
    public func channelManagementDestination(for environment: APNsEnvironment) -> APNsDestination {
        environment == .production ? channelManagementProduction : channelManagementSandbox
    }

    /// Checks ranges and that every named file is readable.
    ///
    /// - Throws: `APNsClientError.invalidConfiguration` naming the setting.
    public func validate() throws(APNsClientError) {
        guard Self.allowedTokenRefreshIntervals.contains(tokenRefreshInterval) else {
            throw .invalidConfiguration(
                "tokenRefreshInterval must be 20-60 minutes (Apple's rule), found \(tokenRefreshInterval)")
        }
        try retryPolicy.validate()
        guard maximumConnectionsPerEnvironment >= 1 else {
            throw .invalidConfiguration("maximumConnectionsPerEnvironment must be at least 1")
        }
        guard maximumStreamsPerConnection >= 1 else {
            throw .invalidConfiguration("maximumStreamsPerConnection must be at least 1")
        }
        guard connectTimeout > .zero, requestTimeout > .zero, pingTimeout > .zero else {
            throw .invalidConfiguration("connectTimeout, requestTimeout and pingTimeout must be positive")
        }
        if let sendTimeout, sendTimeout <= .zero {
            throw .invalidConfiguration("sendTimeout must be positive, or nil for no bound beyond the attempts'")
        }
        if let idlePingInterval, idlePingInterval <= .zero {
            throw .invalidConfiguration("idlePingInterval must be positive, or nil for no PINGs")
        }
        guard (1...64).contains(eventLoopThreads) else {
            throw .invalidConfiguration("eventLoopThreads must be 1-64, found \(eventLoopThreads)")
        }
        var files: [(String, String)] = []
        if let trustRootsPath { files.append(("trustRootsPath", trustRootsPath)) }
        if case let .certificate(chain, key) = authentication {
            files += [("certificateChainPath", chain), ("privateKeyPath", key)]
        }
        if case let .token(_, keyID, teamID) = authentication, keyID.isEmpty || teamID.isEmpty {
            throw .invalidConfiguration("token authentication needs a key ID and a team ID")
        }
        for (name, path) in files where !FileManager.default.isReadableFile(atPath: path) {
            throw .invalidConfiguration("\(name) '\(path)' is not a readable file")
        }
        for (name, destination) in [("production", production), ("sandbox", sandbox),
                                    ("channelManagementProduction", channelManagementProduction),
                                    ("channelManagementSandbox", channelManagementSandbox)] {
            guard !destination.host.isEmpty, (1...65535).contains(destination.port) else {
                throw .invalidConfiguration("\(name) destination \(destination) needs a host and a port 1-65535")
            }
        }
    }
}
