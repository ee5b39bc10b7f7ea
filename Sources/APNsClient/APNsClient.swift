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
///   drops that connection and sends the push once more.
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
        let group = group
        func pool(_ destination: APNsDestination) -> APNsConnectionPool {
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
            // APNs allows one stream until a request carries a valid token; its SETTINGS say so,
            // but a burst submitted before they arrive would already be on the wire.
            transport.initialPeerMaxConcurrentStreams = 1
            // Every push has its own apns-id; indexing it would evict the bearer token.
            transport.unindexedFieldNames = [APNsHeaderName.id]
            return APNsConnectionPool(
                destination: destination, transport: transport, group: group,
                maximumConnections: configuration.maximumConnectionsPerEnvironment,
                maximumStreams: configuration.maximumStreamsPerConnection)
        }
        production = pool(configuration.production)
        sandbox = pool(configuration.sandbox)
        if let interval = configuration.idlePingInterval {
            let pinger = APNsIdlePinger(loop: group.next(), pools: [production, sandbox], interval: interval)
            pinger.start()
            self.pinger = pinger
        } else {
            pinger = nil
        }
    }

    deinit {
        pinger?.stop()
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
    ///   `.transport`, `.invalidRequest`, `.tokenSigningFailed` or `.shutDown` otherwise.
    public func send(_ notification: APNsNotification, environment: APNsEnvironment) async throws(APNsClientError) -> APNsResponse {
        try notification.validateForSending()
        let pool = environment == .production ? production : sandbox
        let apnsID = notification.apnsID ?? ids.next()
        var request = HTTPClientRequest(
            method: "POST", path: "/3/device/" + notification.deviceToken,
            headers: Self.headers(of: notification, apnsID: apnsID), body: notification.payload)
        let policy = configuration.retryPolicy
        var attempt = 0
        var refreshedExpiredToken = false
        var unprocessedResends = 0
        var random = SystemRandomNumberGenerator()
        while true {
            attempt += 1
            var token: APNsProviderTokenSource.Token?
            if let tokens {
                token = try tokens.current()
                if let token { request.headers.replaceOrAdd(name: APNsHeaderName.authorization, value: token.bearer) }
            }
            let connection = try pool.lease()
            let failure: APNsClientError
            var waitFirst = true
            do {
                let response = try await connection.client.send(request)
                if response.status == 200 {
                    pool.release(connection)
                    return APNsResponse(apnsID: response.headers[APNsHeaderName.id] ?? apnsID,
                                        uniqueID: response.headers[APNsHeaderName.uniqueID], status: 200, attempts: attempt)
                }
                let rejection = Self.rejection(from: response, apnsID: apnsID)
                if rejection.reason == .expiredProviderToken, let tokens, let token, !refreshedExpiredToken {
                    // APNs may wedge a connection that saw an expired token (pushy's experience):
                    // sign afresh, leave the connection, and send this push once more.
                    pool.release(connection, retire: true)
                    tokens.invalidate(generation: token.generation)
                    refreshedExpiredToken = true
                    attempt -= 1
                    continue
                }
                pool.release(connection)
                guard rejection.isRetryable else { throw APNsClientError.rejected(rejection) }
                failure = .rejected(rejection)
            } catch let error as HTTPClientError {
                pool.release(connection)
                switch error {
                case .goAway, .streamReset(errorCode: .refusedStream):
                    // The server never processed it (its connection is going away): sending it on
                    // another connection is a reconnect, not a retry, whatever the retry policy.
                    if unprocessedResends < Self.maximumUnprocessedResends {
                        unprocessedResends += 1
                        attempt -= 1
                        continue
                    }
                    waitFirst = false
                case .connectionClosed:
                    break
                default:
                    throw APNsClientError.transport(error)
                }
                failure = .transport(error)
            } catch {
                throw error as? APNsClientError ?? .transport(.protocolError("\(error)"))
            }
            guard attempt < policy.maximumAttempts else {
                throw policy.maximumAttempts == 1 ? failure : .retriesExhausted(attempts: attempt, last: failure)
            }
            if waitFirst {
                do {
                    try await Task.sleep(for: policy.backoff(afterAttempt: attempt, using: &random))
                } catch {
                    throw .transport(.cancelled)
                }
            }
        }
    }

    /// How often one push is sent again after GOAWAY or REFUSED_STREAM said it was not processed,
    /// beyond the retry policy: enough for a few connections going away at once, not a loop.
    static let maximumUnprocessedResends = 3

    /// Closes every connection; pushes in flight fail, and later sends throw `.shutDown`.
    public func shutdown() async {
        pinger?.stop()
        await production.shutdown()
        await sandbox.shutdown()
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

    private static func headers(of notification: APNsNotification, apnsID: String) -> HTTPHeaders {
        var headers: HTTPHeaders = [APNsHeaderName.pushType: notification.pushType.rawValue, APNsHeaderName.id: apnsID]
        if let topic = notification.topic { headers.add(name: APNsHeaderName.topic, value: topic) }
        if let priority = notification.priority { headers.add(name: APNsHeaderName.priority, value: String(priority.rawValue)) }
        if let expiration = notification.expiration {
            headers.add(name: APNsHeaderName.expiration, value: String(expiration.unixSeconds))
        }
        if let collapseID = notification.collapseID { headers.add(name: APNsHeaderName.collapseID, value: collapseID) }
        return headers
    }

    /// Reads `{"reason":…,"timestamp":…}`; a body without a reason keeps its text in `.unknown`.
    static func rejection(from response: HTTPClientResponse, apnsID: String) -> APNsRejection {
        var reason = APNsReason.unknown(String(decoding: response.body.prefix(200), as: UTF8.self))
        var timestamp: Int64?
        if case let .object(members)? = try? JSONParser.parse(response.body, maximumDepth: 4) {
            if let wire = members["reason"]?.stringValue { reason = APNsReason(wireValue: wire) }
            switch members["timestamp"] {
            case let .integer(value)?: timestamp = value
            case let .double(value)? where value.isFinite: timestamp = Int64(value)
            default: break
            }
        }
        return APNsRejection(status: response.status, reason: reason, timestampMilliseconds: timestamp,
                             apnsID: response.headers[APNsHeaderName.id] ?? apnsID,
                             uniqueID: response.headers[APNsHeaderName.uniqueID])
    }
}
