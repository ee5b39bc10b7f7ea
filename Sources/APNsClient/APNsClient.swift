import APNsCore
import Foundation
import HTTPTransport
import JWTVerify
import StrictJSON

/// Sends push notifications to APNs (or any server speaking its HTTP/2 provider API, such
/// as `apns-mock`) over pooled, persistent connections.
///
/// ```swift
/// var configuration = APNsClientConfiguration(
///     authentication: try .token(p8Path: "AuthKey_ABC123DEFG.p8", keyID: "ABC123DEFG", teamID: "TEAM000001"))
/// let client = try APNsClient(configuration: configuration)
/// let notification = APNsNotification(
///     deviceToken: token, topic: "com.example.app", payload: Array(#"{"aps":{"alert":"Hi"}}"#.utf8))
/// do {
///     let response = try await client.send(notification, environment: .sandbox)
///     print("delivered as", response.apnsID)
/// } catch let error {
///     if error.rejection?.meansDeviceIsGone == true { /* forget the token */ }
/// }
/// await client.shutdown()
/// ```
///
/// - Token authentication signs one provider token and reuses it on every connection until
///   `tokenRefreshInterval` passes; after `ExpiredProviderToken` it signs a new one at once,
///   drops that connection and sends the push once more. A connection changes tokens at
///   most once per 20 minutes, as APNs requires; one that may not yet is replaced.
/// - Pushes are retried only where Apple allows (5xx, 429 `TooManyRequests`, a connection
///   lost or going away before the answer), with jittered exponential backoff, bounded by
///   `APNsRetryPolicy`, always with the same `apns-id`.
/// - Safe to share: any number of tasks may call `send` at once.
///
/// - Important: call `shutdown()` when done: it closes the connections and stops the
///   client's event loop thread, which dropping the last reference does not.
public final class APNsClient: Sendable {
    /// The configuration the client was made with.
    public let configuration: APNsClientConfiguration

    private let group: EventLoopGroup
    private let production: APNsConnectionPool
    private let sandbox: APNsConnectionPool
    /// The channel management API's connections, on hosts and ports of their own.
    private let channelManagementProduction: APNsConnectionPool
    private let channelManagementSandbox: APNsConnectionPool
    private let tokens: APNsProviderTokenSource?
    private let ids = APNsIDGenerator()
    private let pinger: APNsIdlePinger?

    /// Creates a client; connections open on the first push to each environment.
    ///
    /// - Parameters:
    ///   - configuration: credentials, destinations and limits.
    ///   - now: the wall clock provider tokens are dated and refreshed by; tests inject one
    ///     to simulate hours.
    /// - Throws: `APNsClientError.invalidConfiguration` for a bad setting or unreadable file.
    public init(configuration: APNsClientConfiguration, now: @escaping @Sendable () -> Date = { Date() }) throws(APNsClientError) {
        try configuration.validate()
        self.configuration = configuration
        // TLS material loads here, once per destination, before any loop runs.
        let productionEndpoint = try Self.endpoint(for: configuration.production, configuration: configuration)
        let sandboxEndpoint = try Self.endpoint(for: configuration.sandbox, configuration: configuration)
        let managementProductionEndpoint = try Self.endpoint(for: configuration.channelManagementProduction, configuration: configuration)
        let managementSandboxEndpoint = try Self.endpoint(for: configuration.channelManagementSandbox, configuration: configuration)
        do {
            group = try EventLoopGroup(threads: configuration.eventLoopThreads)
        } catch {
            throw .invalidConfiguration("cannot start event loops: \(error)")
        }
        switch configuration.authentication {
        case let .token(key, keyID, teamID):
            tokens = APNsProviderTokenSource(
                signer: JWTSigner(key: key, keyID: keyID), teamID: teamID,
                refreshInterval: configuration.tokenRefreshInterval, now: now)
        case .certificate:
            tokens = nil
        }
        production = APNsConnectionPool(
            destination: configuration.production, endpoint: productionEndpoint, group: group,
            maximumConnections: configuration.maximumConnectionsPerEnvironment,
            maximumStreams: configuration.maximumStreamsPerConnection, tokens: tokens)
        sandbox = APNsConnectionPool(
            destination: configuration.sandbox, endpoint: sandboxEndpoint, group: group,
            maximumConnections: configuration.maximumConnectionsPerEnvironment,
            maximumStreams: configuration.maximumStreamsPerConnection, tokens: tokens)
        // Channel calls are few: one connection each is plenty.
        channelManagementProduction = APNsConnectionPool(
            destination: configuration.channelManagementProduction, endpoint: managementProductionEndpoint, group: group,
            maximumConnections: 1, maximumStreams: configuration.maximumStreamsPerConnection, tokens: tokens)
        channelManagementSandbox = APNsConnectionPool(
            destination: configuration.channelManagementSandbox, endpoint: managementSandboxEndpoint, group: group,
            maximumConnections: 1, maximumStreams: configuration.maximumStreamsPerConnection, tokens: tokens)
        if let interval = configuration.idlePingInterval {
            let pinger = APNsIdlePinger(
                loop: group.next(), pools: [production, sandbox, channelManagementProduction, channelManagementSandbox], interval: interval)
            pinger.start()
            self.pinger = pinger
        } else {
            pinger = nil
        }
    }

    deinit {
        pinger?.stop()
    }

    /// The transport settings APNs needs, with the TLS context every connection to
    /// `destination` shares.
    private static func endpoint(for destination: APNsDestination,
                                 configuration: APNsClientConfiguration) throws(APNsClientError) -> HTTP2ClientEndpoint {
        var tls: TLSConfiguration?
        if destination.usesTLS {
            tls = .makeClientConfiguration(trustRootsPath: configuration.trustRootsPath)
            if case let .certificate(chain, key) = configuration.authentication {
                tls?.certificateChainPath = chain
                tls?.privateKeyPath = key
            }
        }
        var transport = HTTP2ClientConfiguration(host: destination.host, port: destination.port, tls: tls)
        transport.serverName = destination.serverName
        transport.connectTimeout = configuration.connectTimeout
        transport.requestTimeout = configuration.requestTimeout
        transport.pingTimeout = configuration.pingTimeout
        // APNs allows one stream until a request carries a valid token; its SETTINGS say so,
        // but a burst submitted before they arrive would already be on the wire.
        transport.initialPeerMaxConcurrentStreams = 1
        // Every push has its own apns-id; indexing it would evict the bearer token.
        transport.unindexedFieldNames = [APNsHeaderName.id]
        // A refused push comes back to APNsSendAttempts, which resends it on another
        // connection within one small budget, instead of the transport resending it here.
        transport.maximumRefusedStreamResends = 0
        do {
            return try HTTP2ClientEndpoint(configuration: transport)
        } catch {
            throw .invalidConfiguration("cannot prepare the connection to \(destination): \(error)")
        }
    }

    /// Sends `notification` to the device in `environment` and waits for APNs' answer,
    /// retrying where the retry policy and Apple allow.
    ///
    /// - Parameters:
    ///   - notification: the device token, headers and payload.
    ///   - environment: `.production` or `.sandbox`; the token must belong to it.
    /// - Returns: the accepted push's ids.
    /// - Throws: `APNsClientError.rejected` with status, reason and 410 timestamp for an
    ///   APNs error; `.retriesExhausted` when retryable failures used up the policy;
    ///   `.sendTimedOut` when `sendTimeout` ran out first; `.transport`, `.invalidRequest`,
    ///   `.tokenSigningFailed` or `.shutDown` otherwise.
    public func send(_ notification: APNsNotification, environment: APNsEnvironment) async throws(APNsClientError) -> APNsResponse {
        var attempts = try APNsSendAttempts(notification, apnsID: ids.next(), policy: configuration.retryPolicy,
                                            requestTimeout: configuration.requestTimeout, sendTimeout: configuration.sendTimeout)
        let response = try await run(&attempts, on: pool(for: environment))
        return attempts.acceptedPush(response)
    }

    /// Sends `request` (a broadcast, or a channel management call when `management`) to
    /// `environment`, retrying as a push is retried, or only after a send the server did not
    /// process when `retries` is false; returns the success answer and the request's id.
    func send(_ request: APNsProviderRequest, environment: APNsEnvironment, management: Bool,
              retries: Bool = true) async throws(APNsClientError) -> (answer: HTTPClientResponse, requestID: String, attempts: Int) {
        var policy = configuration.retryPolicy
        if !retries { policy.maximumAttempts = 1 }
        var attempts = APNsSendAttempts(request, requestID: ids.next(), policy: policy,
                                        requestTimeout: configuration.requestTimeout, sendTimeout: configuration.sendTimeout)
        let pool = switch (management, environment) {
        case (false, _): self.pool(for: environment)
        case (true, .production): channelManagementProduction
        case (true, _): channelManagementSandbox
        }
        let answer = try await run(&attempts, on: pool)
        return (answer, answer.headers[APNsHeaderName.requestID] ?? attempts.apnsID, attempts.attemptsMade)
    }

    /// Leases, sends and reads answers until `attempts` ends in a success or an error.
    private func run(_ attempts: inout APNsSendAttempts, on pool: APNsConnectionPool) async throws(APNsClientError) -> HTTPClientResponse {
        while true {
            let lease = try pool.lease(avoiding: attempts.avoidedConnection)
            let connection = lease.connection
            let request = attempts.begin(token: lease.token)
            let result: Result<HTTPClientResponse, HTTPClientError>
            do {
                result = .success(try await connection.client.send(request))
            } catch {
                result = .failure(error)
            }
            switch try attempts.end(result, on: connection, pool: pool, tokens: tokens) {
            case let .delivered(response):
                return response
            case .again(after: nil):
                continue
            case let .again(after: delay?):
                do {
                    try await Task.sleep(for: delay)
                } catch {
                    throw .transport(.cancelled)
                }
            }
        }
    }

    /// Sends `notification` like `send(_:environment:)`, retrying alike, and calls
    /// `completion` with the outcome instead of suspending a task: no task is created,
    /// enqueued or resumed per push, which is what a server forwarding pushes from an
    /// event loop wants.
    ///
    /// `completion` runs exactly once: usually on the event loop of the connection that
    /// carried the last attempt; for a failure found before anything was sent (an invalid
    /// notification, a client shut down), on the calling thread before this returns, or
    /// on a timer thread after a backoff. Keep it short, as it may hold up the loop.
    ///
    /// ```swift
    /// client.send(notification, environment: .sandbox) { result in
    ///     if case let .failure(error) = result, error.rejection?.meansDeviceIsGone == true { /* forget it */ }
    /// }
    /// ```
    public func send(
        _ notification: APNsNotification, environment: APNsEnvironment,
        completion: @escaping @Sendable (Result<APNsResponse, APNsClientError>) -> Void
    ) {
        let attempts: APNsSendAttempts
        do throws(APNsClientError) {
            attempts = try APNsSendAttempts(notification, apnsID: ids.next(), policy: configuration.retryPolicy,
                                           requestTimeout: configuration.requestTimeout, sendTimeout: configuration.sendTimeout)
        } catch {
            completion(.failure(error))
            return
        }
        send(attempts, on: pool(for: environment), completion: completion)
    }

    /// One attempt of the callback `send`, and the next from its completion.
    ///
    /// `attempts` is consumed: it moves on into the completion rather than being copied.
    private func send(_ attempts: consuming APNsSendAttempts, on pool: APNsConnectionPool,
                      completion: @escaping @Sendable (Result<APNsResponse, APNsClientError>) -> Void) {
        let lease: APNsConnectionPool.Lease
        do throws(APNsClientError) {
            lease = try pool.lease(avoiding: attempts.avoidedConnection)
        } catch {
            completion(.failure(error))
            return
        }
        let connection = lease.connection
        let request = attempts.begin(token: lease.token)
        connection.client.send(request) { [self, attempts] result in
            var attempts = attempts
            let next: APNsSendAttempts.Next
            do throws(APNsClientError) {
                next = try attempts.end(result, on: connection, pool: pool, tokens: tokens)
            } catch {
                completion(.failure(error))
                return
            }
            switch next {
            case let .delivered(response):
                completion(.success(attempts.acceptedPush(response)))
            case .again(after: nil):
                send(attempts, on: pool, completion: completion)
            case let .again(after: delay?):
                // A Dispatch timer, not the loop's: it fires even if the loops stop meanwhile,
                // and the next lease then reports `.shutDown` instead of the push going unanswered.
                DispatchQueue.global().asyncAfter(deadline: Self.deadline(after: delay)) { [self, attempts] in
                    send(attempts, on: pool, completion: completion)
                }
            }
        }
    }

    /// `delay` from now, saturating: a delay too long for Dispatch's nanoseconds waits forever
    /// rather than wrapping around to a deadline in the past.
    static func deadline(after delay: Duration) -> DispatchTime {
        let (seconds, attoseconds) = delay.components
        let (whole, overflow) = Int(clamping: seconds).multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return .distantFuture }
        let (nanoseconds, sumOverflow) = whole.addingReportingOverflow(Int(attoseconds / 1_000_000_000))
        return sumOverflow ? .distantFuture : .now() + .nanoseconds(nanoseconds)
    }

    private func pool(for environment: APNsEnvironment) -> APNsConnectionPool {
        environment == .production ? production : sandbox
    }

    /// How often one push is sent again after GOAWAY or REFUSED_STREAM said it was not processed,
    /// beyond the retry policy: enough for a connection or two going away under it, not a loop.
    /// The transport resends nothing itself (`maximumRefusedStreamResends` 0), so this is the
    /// whole budget; the first resend goes at once, the next after the policy's backoff.
    static let maximumUnprocessedResends = 2

    /// Closes every connection; pushes in flight fail, and later sends throw `.shutDown`.
    public func shutdown() async {
        pinger?.stop()
        await production.shutdown()
        await sandbox.shutdown()
        await channelManagementProduction.shutdown()
        await channelManagementSandbox.shutdown()
        group.shutdown()
    }

    /// The event loops the connections run on (`eventLoopThreads` of them). A server that
    /// answers its requests on these loops (`HTTPServer(configuration:handler:group:)`) and
    /// sends from tasks on them never changes threads between its request and APNs' answer.
    /// The client stops them in `shutdown()`.
    public var eventLoopGroup: EventLoopGroup { group }

    /// Connections opened to `environment` so far, including closed ones: a measure of reconnects.
    public func connectionsOpened(to environment: APNsEnvironment) -> Int {
        (environment == .production ? production : sandbox).connectionsOpened
    }

    /// Provider tokens signed so far; 0 with certificate authentication.
    public var providerTokensSigned: Int { tokens?.tokensSigned ?? 0 }

    /// Reads `{"reason":…,"timestamp":…}`; a body without a reason keeps its text in `.unknown`.
    static func rejection(from response: HTTPClientResponse, apnsID: String) -> APNsRejection {
        let body = errorBody(response.body)
        return APNsRejection(
            status: response.status,
            reason: body.reason ?? .unknown(String(decoding: response.body.prefix(200), as: UTF8.self)),
            timestampMilliseconds: body.timestamp,
            apnsID: response.headers[APNsHeaderName.id] ?? apnsID,
            uniqueID: response.headers[APNsHeaderName.uniqueID])
    }

    /// APNs' JSON error body, `{"reason":…,"timestamp":…}`, as an answer or as GOAWAY debug
    /// data carries it: nil members for what is absent or not that JSON.
    static func errorBody(_ bytes: [UInt8]) -> (reason: APNsReason?, timestamp: Int64?) {
        guard case let .object(members)? = try? JSONParser.parse(bytes, maximumDepth: 4) else { return (nil, nil) }
        let reason = members["reason"]?.stringValue.map(APNsReason.init(wireValue:))
        switch members["timestamp"] {
        case let .integer(value)?: return (reason, value)
        // A number past Int64 (1e19, say) has no timestamp to give; converting it would trap,
        // and with the callback `send` that would take the whole event loop down.
        case let .double(value)?: return (reason, Int64(exactly: value.rounded(.towardZero)))
        default: return (reason, nil)
        }
    }
}
