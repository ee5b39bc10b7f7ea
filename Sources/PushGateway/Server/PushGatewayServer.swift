import APNsCore
import CLISupport
import Foundation
import HTTPTransport

/// A running push gateway: `POST /push`, `POST /register`, `/healthz` and `/metrics` over
/// HTTP/1.1 and HTTP/2, TLS or cleartext, forwarding authorized pushes through `delivery`.
///
/// ```swift
/// let secrets = try GatewaySecrets.fromEnvironment()
/// let gateway = try PushGatewayServer(configuration: configuration, secrets: secrets,
///                                     delivery: try APNsClientDelivery(configuration: configuration))
/// print(gateway.url)          // http://127.0.0.1:8088
/// await gateway.shutdown()
/// ```
public final class PushGatewayServer: Sendable {
    /// The configuration it serves with.
    public let configuration: GatewayConfiguration
    /// `http://host:port` or `https://host:port`, with the port actually bound.
    public let url: String
    /// The counters behind `/metrics`.
    public let metrics: GatewayMetrics
    private let server: HTTPServer
    private let delivery: any APNsDelivering

    /// The largest request header list read: 431 `headers_too_large` above it.
    public static let maxHeaderListSize = 16 * 1024

    /// Validates the configuration and starts listening.
    ///
    /// - Parameters:
    ///   - delivery: where authorized pushes go; the gateway shuts it down with itself.
    ///   - logger: one line per request, never with titles, bodies, full tokens or secrets.
    ///   - wallClock: UNIX seconds for `apns-expiration`; tests inject one.
    ///   - rateClock: monotonic seconds for the rate limits; tests inject one.
    /// - Throws: ``PushGatewayError`` for an invalid configuration or a listener that cannot start.
    public init(
        configuration: GatewayConfiguration, secrets: GatewaySecrets, delivery: any APNsDelivering,
        logger: Logger = Logger(label: "push-gateway"),
        wallClock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) },
        rateClock: @escaping @Sendable () -> Double = GatewayRateLimiter.monotonicSeconds
    ) throws(PushGatewayError) {
        do {
            try configuration.validate(secrets: secrets)
        } catch {
            throw PushGatewayError(context: "configuration", underlying: error.message)
        }
        self.configuration = configuration
        self.delivery = delivery
        metrics = GatewayMetrics()
        let handler = GatewayHandler(
            authorizer: PushAuthorizer(modes: configuration.authModes, secrets: secrets),
            limiter: GatewayRateLimiter(perDevice: configuration.perDeviceRateLimit, total: configuration.totalRateLimit,
                                        register: configuration.registerRateLimit, perSource: configuration.perSourceRateLimit,
                                        now: rateClock),
            delivery: delivery, metrics: metrics, logger: logger, topic: configuration.topic,
            maximumBodySize: configuration.maximumBodySize, ids: APNsIDGenerator(),
            wallClock: wallClock)
        var listener = HTTPServerConfiguration(host: configuration.host, port: configuration.port)
        // A gateway's clients send small requests one at a time: limits far below the
        // transport's defaults (10,000 connections of 1,000 streams each), so a client
        // cannot make it hold much (docs/push-gateway.md, Security).
        listener.maxConnections = configuration.maxConnections
        listener.maxConnectionsPerSource = configuration.maxConnectionsPerSource
        listener.maxConcurrentStreams = configuration.maxConcurrentStreams
        listener.maxBodySize = configuration.maximumBodySize
        listener.maxHeaderListSize = Self.maxHeaderListSize
        listener.idleTimeout = .seconds(60)
        listener.requestReadTimeout = configuration.requestReadTimeout
        if let certificate = configuration.tlsCertificatePath, let key = configuration.tlsPrivateKeyPath {
            listener.tls = .makeServerConfiguration(certificateChainPath: certificate, privateKeyPath: key)
        }
        do {
            // On the delivery's loops when it has them: each push then stays on one thread.
            server = try HTTPServer(configuration: listener, handler: handler, group: delivery.eventLoopGroup)
        } catch {
            throw PushGatewayError(context: "listener on \(configuration.host):\(configuration.port)", underlying: "\(error)")
        }
        url = "\(listener.tls == nil ? "http" : "https")://\(server.localAddress)"
        metrics.attachTransport { [weak server] in server?.metrics }
    }

    /// Stops accepting, lets requests in flight finish (up to `gracePeriod`), then closes
    /// the APNs connections.
    public func shutdown(gracePeriod: Duration = .seconds(5)) async {
        await server.shutdown(gracePeriod: gracePeriod)
        await delivery.shutdown()
    }
}
