import APNsCore
import Foundation
import HTTPTransport
import JWTVerify

/// A running mock of APNs: a production and a sandbox listener, the capture of every push,
/// fault rules, metrics, and the control API.
///
/// One call starts everything on free ports for a test:
///
/// ```swift
/// let mock = try MockAPNsServer.startForTesting()
/// defer { mock.stop() }
/// // Point a client at mock.sandboxURL, trusting mock.trustRootsPath, signing with
/// // MockTestCertificates.bundled.providerKeyPath() ...
/// let result = await mock.capture.wait(for: CaptureFilter(topic: "com.example.app"), count: 1, timeout: .seconds(5))
/// #expect(result.isSatisfied)
/// try mock.faults.add(FaultRule(id: "down", action: .unavailable(reason: .serviceUnavailable)))
/// ```
public final class MockAPNsServer: Sendable {
    /// The configuration the mock started with (ports as configured, possibly 0).
    public let configuration: MockConfiguration
    /// `https://host:port` (or `http://` without TLS) of the production listener.
    public let productionURL: String
    /// The same for the sandbox listener.
    public let sandboxURL: String
    /// `http://host:port` of the control API.
    public let controlURL: String
    /// `https://host:port` (or `http://` without TLS) of the sandbox channel management listener.
    public let channelSandboxURL: String
    /// The same for the production channel management listener.
    public let channelProductionURL: String
    /// The CA that signed the server certificate, for clients to trust; nil without TLS or
    /// when the certificate's folder has no `ca.pem`.
    public let trustRootsPath: String?
    /// Every push, accepted or rejected.
    public let capture: CaptureStore
    /// The fault rules, changeable while serving.
    public let faults: FaultEngine
    /// Counters for `/metrics`.
    public let metrics: PushMetrics
    /// The broadcast channels of both environments, which the channel management listeners,
    /// broadcasts and the control API share; create some here for a test.
    public let channels: ChannelStore
    /// Channel management requests and broadcasts, counted and logged.
    public var channelEvents: ChannelEventLog { services.channelEvents }
    /// Devices' connectivity, stored pushes, notification centres and the delivery log;
    /// pushes reach it only when ``MockConfiguration/delivery`` is enabled.
    public let delivery: DeliveryModel
    /// Hands accepted alert pushes to an iOS Simulator; nil unless
    /// ``MockConfiguration/simulatorForwarding`` is set.
    public let simulatorForwarder: SimulatorForwarder?

    private let services: MockServices
    private let production: HTTPServer
    private let sandbox: HTTPServer
    private let control: HTTPServer
    private let channelSandbox: HTTPServer
    private let channelProduction: HTTPServer
    /// The control API's long-polls, answered 503 with what they have when the mock stops.
    private let controlWaits: ControlWaits
    private let group: EventLoopGroup
    /// The control API's own loop: a listing of the whole ring or many long-polls answered
    /// at once must not hold up the pushes of connections on the APNs listeners' loops.
    private let controlGroup: EventLoopGroup

    /// Starts the listeners described by `configuration`.
    ///
    /// - Parameters:
    ///   - observers: observers of every answered push, besides the server's own capture.
    ///   - now: the clock for provider tokens and the delivery model; tests inject one.
    ///   - handlerFactory: chooses what decides each push. It is called once, here, with
    ///     the built-in factory (the configuration's registry and validation settings,
    ///     kept current by ``replaceRegistry(_:)`` and the control API), and returns the
    ///     factory that makes each connection's handler: the built-in one by default, or
    ///     one of your own, which may wrap it.
    /// - Throws: `MockServerError` naming the listener or file that failed.
    public init(
        configuration: MockConfiguration, observers: [any PushObserver] = [], now: (@Sendable () -> Date)? = nil,
        handlerFactory: (ValidatingPushHandlerFactory) -> any PushHandlerFactory = { $0 }
    ) throws(MockServerError) {
        let settings = configuration.server
        self.configuration = configuration
        do {
            try configuration.validate()
            capture = try settings.captureFilePath.map { (path) throws(CaptureFileError) in
                CaptureStore(capacity: settings.captureRingSize,
                             fileWriter: try CaptureFileWriter(
                                path: path, maximumPendingBytes: settings.captureMaximumPendingBytes,
                                syncsEachBatch: settings.captureSyncsEachBatch))
            } ?? CaptureStore(capacity: settings.captureRingSize)
            faults = try FaultEngine(rules: configuration.faults)
            simulatorForwarder = try configuration.simulatorForwarding.map { (settings) throws(ConfigurationError) in
                try SimulatorForwarder(settings: settings)
            }
        } catch {
            throw MockServerError(context: "configuration", underlying: "\(error)")
        }
        metrics = PushMetrics()
        channels = ChannelStore()
        delivery = DeliveryModel(settings: configuration.delivery, logCapacity: settings.captureRingSize, capture: capture,
                                 now: now ?? { Date() })
        let validation = ValidatingPushHandlerFactory(
            registry: configuration.registry, settings: configuration.validation, now: now, channels: channels)
        services = MockServices(
            validation: validation, handlers: handlerFactory(validation), faults: faults, metrics: metrics,
            capture: capture,
            observers: observers + (delivery.isEnabled ? [DeliveryObserver(model: delivery)] : []) + (simulatorForwarder.map { [$0] } ?? []),
            streamPolicy: StreamLimitPolicy(
                maxConcurrentStreams: settings.maxConcurrentStreams,
                lowersAfterRejection: settings.dropsStreamLimitAfterRejection),
            errorBudget: ConnectionErrorBudget(limit: settings.connectionErrorBudget), simulatorForwarder: simulatorForwarder)
        do {
            group = try EventLoopGroup()
        } catch {
            simulatorForwarder?.stop()
            throw MockServerError(context: "event loops", underlying: "\(error)")
        }
        do {
            controlGroup = try EventLoopGroup(threads: 1)
        } catch {
            group.shutdown()
            simulatorForwarder?.stop()
            throw MockServerError(context: "control API event loop", underlying: "\(error)")
        }
        var listener = HTTPServerConfiguration(host: settings.host, port: 0)
        // One stream until a request carries a valid token, as APNs does.
        listener.maxConcurrentStreams = 1
        listener.idleTimeout = settings.idleTimeout
        listener.requestReadTimeout = settings.requestReadTimeout
        listener.requestHeadersTimeout = settings.requestHeadersTimeout
        listener.connectionPrefaceTimeout = settings.connectionPrefaceTimeout
        listener.maxConnections = settings.maxConnections
        listener.idleGoAwayDebugData = APNsErrorResponse(reason: .idleTimeout).jsonBytes
        listener.shutdownGoAwayDebugData = APNsErrorResponse(reason: .shutdown).jsonBytes
        listener.maxBodySize = 64 * 1024  // Far above APNs' 5120-byte limit: PayloadTooLarge, not 413 from the transport.
        listener.acceptsHTTP1 = false  // APNs speaks HTTP/2 only.
        // The first SETTINGS APNs sends (docs/fidelity.md, "Connections"); the control API
        // keeps the transport's defaults.
        listener.headerTableSize = settings.headerTableSize
        listener.initialWindowSize = settings.initialWindowSize
        listener.maxFrameSize = settings.maxFrameSize
        listener.maxHeaderListSize = settings.maxHeaderListSize
        listener.connectionWindowSize = MockServerSettings.connectionWindowSize
        if settings.tlsEnabled {
            var tls = TLSConfiguration.makeServerConfiguration(
                certificateChainPath: settings.certificatePath, privateKeyPath: settings.privateKeyPath)
            if let clientCA = settings.clientCAPath {
                tls.trustRootsPath = clientCA
                tls.peerVerification = .optional  // Token-auth clients send no certificate.
            }
            listener.tls = tls
        }
        let scheme = settings.tlsEnabled ? "https" : "http"
        let group = group
        func start(_ name: String, port: Int, handler: any HTTPServerHandler, configuration: HTTPServerConfiguration,
                   on group: EventLoopGroup = group) throws(MockServerError) -> HTTPServer {
            var configuration = configuration
            configuration.port = port
            do {
                return try HTTPServer(configuration: configuration, handler: handler, group: group)
            } catch {
                throw MockServerError(context: "\(name) listener on \(settings.host):\(port)", underlying: "\(error)")
            }
        }
        do {
            production = try start("production", port: settings.productionPort,
                                   handler: APNsEndpoint(environment: .production, services: services,
                                                         explainsInHeader: settings.explanationHeader),
                                   configuration: listener)
            sandbox = try start("sandbox", port: settings.sandboxPort,
                                handler: APNsEndpoint(environment: .sandbox, services: services, explainsInHeader: settings.explanationHeader),
                                configuration: listener)
            var channelListener = listener
            // Streams are not limited to one before a valid token here: Apple documents that
            // for the push listeners only.
            channelListener.maxConcurrentStreams = settings.maxConcurrentStreams
            channelListener.maxBodySize = PushValidator.maximumChannelRequestBodySize
            channelSandbox = try start("channel sandbox", port: settings.channelSandboxPort,
                                       handler: ChannelEndpoint(environment: .sandbox, services: services,
                                                                explainsInHeader: settings.explanationHeader),
                                       configuration: channelListener)
            channelProduction = try start("channel production", port: settings.channelProductionPort,
                                          handler: ChannelEndpoint(environment: .production, services: services,
                                                                   explainsInHeader: settings.explanationHeader),
                                          configuration: channelListener)
            var controlListener = HTTPServerConfiguration(host: settings.host, port: 0)
            controlListener.maxBodySize = 4 * 1024 * 1024
            let listeners = [production, sandbox]
            let controlAPI = ControlAPI(capture: capture, faults: faults, metrics: metrics, services: services, delivery: delivery,
                                        transportMetrics: { Self.sum(listeners.map(\.metrics)) },
                                        accessToken: settings.controlAccessToken.map { Array($0.utf8) },
                                        hostCheck: ControlHostCheck(bindHost: settings.host, extraNames: settings.controlAllowedHosts),
                                        profiles: InspectionProfiles(policy: configuration.policy))
            controlWaits = controlAPI.waits
            control = try start("control", port: settings.controlPort, handler: controlAPI,
                                configuration: controlListener, on: controlGroup)
        } catch {
            group.shutdown()
            controlGroup.shutdown()
            simulatorForwarder?.stop()
            capture.close()
            throw error
        }
        if delivery.isEnabled { DeliveryObserver.tick(delivery, on: controlGroup.next()) }
        productionURL = "\(scheme)://\(production.localAddress)"
        sandboxURL = "\(scheme)://\(sandbox.localAddress)"
        controlURL = "http://\(control.localAddress)"
        channelSandboxURL = "\(scheme)://\(channelSandbox.localAddress)"
        channelProductionURL = "\(scheme)://\(channelProduction.localAddress)"
        let caPath = URL(fileURLWithPath: settings.certificatePath).deletingLastPathComponent().appendingPathComponent("ca.pem").path
        trustRootsPath = settings.tlsEnabled && FileManager.default.fileExists(atPath: caPath) ? caPath : nil
    }

    /// Starts the zero-configuration mock on free ports of 127.0.0.1, control API included:
    /// the keys, certificates and CA in `certsDirectory`, any well-formed device token.
    ///
    /// - Parameters:
    ///   - certsDirectory: the test material; by default the set this package ships
    ///     (``MockTestCertificates/locateBundled()``), so a package depending on this one
    ///     needs no files.
    ///   - configure: adjusts the configuration before start (TLS off, faults, devices).
    ///   - now: the clock for provider tokens and the delivery model.
    ///   - handlerFactory: what decides each push, given the built-in factory, as for
    ///     ``init(configuration:observers:now:handlerFactory:)``.
    public static func startForTesting(
        certsDirectory: String? = nil,
        configure: (inout MockConfiguration) -> Void = { _ in },
        now: (@Sendable () -> Date)? = nil,
        handlerFactory: (ValidatingPushHandlerFactory) -> any PushHandlerFactory = { $0 }
    ) throws(MockServerError) -> MockAPNsServer {
        let directory: String
        do {
            directory = try certsDirectory ?? MockTestCertificates.locateBundled().directory
        } catch {
            throw MockServerError(context: "default test certificates", underlying: "\(error)")
        }
        var configuration: MockConfiguration
        do {
            configuration = try MockConfiguration.makeDefault(certsDirectory: directory)
        } catch {
            throw MockServerError(context: "default configuration from \(directory)", underlying: "\(error)")
        }
        configuration.server.productionPort = 0
        configuration.server.sandboxPort = 0
        configuration.server.controlPort = 0
        configuration.server.channelSandboxPort = 0
        configuration.server.channelProductionPort = 0
        configure(&configuration)
        return try MockAPNsServer(configuration: configuration, now: now, handlerFactory: handlerFactory)
    }

    /// The apps, keys and devices pushes are checked against now.
    public var registry: MockRegistry { services.validator.registry }

    /// Replaces the apps, keys and devices; pushes already in flight finish with the old ones.
    public func replaceRegistry(_ registry: MockRegistry) {
        services.replaceRegistry(registry)
    }

    /// Transport counters of both APNs listeners, summed.
    public var transportMetrics: TransportMetrics { Self.sum([production.metrics, sandbox.metrics]) }

    private static func sum(_ listeners: [TransportMetrics]) -> TransportMetrics {
        listeners.reduce(TransportMetrics(openConnections: 0, openStreams: 0, acceptedConnections: 0, rejectedConnections: 0,
                                          requests: 0)) { a, b in
            TransportMetrics(
                openConnections: a.openConnections + b.openConnections, openStreams: a.openStreams + b.openStreams,
                acceptedConnections: a.acceptedConnections + b.acceptedConnections,
                rejectedConnections: a.rejectedConnections + b.rejectedConnections, requests: a.requests + b.requests,
                timedOutRequests: a.timedOutRequests + b.timedOutRequests,
                rejectedSourceConnections: a.rejectedSourceConnections + b.rejectedSourceConnections,
                prefaceTimeouts: a.prefaceTimeouts + b.prefaceTimeouts, acceptPauses: a.acceptPauses + b.acceptPauses)
        }
    }

    /// Stops accepting, lets pushes in flight finish (up to `gracePeriod`), sends GOAWAY,
    /// and writes out the capture file.
    public func stop(gracePeriod: Duration = .seconds(2)) {
        production.shutdown(gracePeriod: gracePeriod)
        sandbox.shutdown(gracePeriod: gracePeriod)
        channelSandbox.shutdown(gracePeriod: gracePeriod)
        channelProduction.shutdown(gracePeriod: gracePeriod)
        // Long-polls answer 503 from tasks of the cooperative pool, which a loaded machine can
        // hold back for a while; a connection still open when its grace ends is reset, and the
        // reset destroys an answer its client has not read. Both get the whole grace period,
        // and both end as soon as the answers are out.
        controlWaits.stopAll(timeout: gracePeriod)
        control.shutdown(gracePeriod: gracePeriod)
        group.shutdown()
        controlGroup.shutdown()
        simulatorForwarder?.stop(gracePeriod: gracePeriod)
        capture.close()
    }
}
