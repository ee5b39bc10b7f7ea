import APNsClient
import Foundation
import HTTPTransport
import HermesContract
import JWTVerify

/// The real ``APNsDelivering``: an `APNsClient` with the gateway's key, endpoints and CA.
///
/// The client owns what the HTTP side must not: pooled HTTP/2 connections, the provider
/// token (reused, refreshed, re-signed at once after `ExpiredProviderToken`) and the
/// retries Apple allows, with the gateway's `apns-id` on every attempt.
public final class APNsClientDelivery: APNsDelivering {
    /// The client pushes go through.
    public let client: APNsClient

    /// A delivery over `client`.
    public init(client: APNsClient) {
        self.client = client
    }

    /// A client for `configuration`: its provider key, APNs URLs, CA, attempt count and
    /// APNs timeout (the client's `sendTimeout`, which also bounds each attempt).
    ///
    /// - Parameters:
    ///   - secrets: where the `.p8` is when the provider key has no path.
    ///   - now: the wall clock provider tokens are dated by; tests inject one.
    ///   - adjust: a last look at the client configuration (pool sizes, backoff in tests).
    /// - Throws: ``PushGatewayError`` when the key cannot be loaded or a URL is malformed.
    public convenience init(
        configuration: GatewayConfiguration, secrets: GatewaySecrets = GatewaySecrets(),
        now: @escaping @Sendable () -> Date = { Date() },
        adjust: (inout APNsClientConfiguration) -> Void = { _ in }
    ) throws(PushGatewayError) {
        guard let key = configuration.providerKey else {
            throw PushGatewayError(context: "auth key", underlying: "set the signing key (--auth-key KEY_ID:TEAM_ID:P8_PATH)")
        }
        let authentication: APNsAuthentication
        do {
            if let path = key.path {
                authentication = try .token(p8Path: path, keyID: key.keyID, teamID: key.teamID)
            } else if let pem = secrets.providerKey {
                let signingKey = try ES256PrivateKey(pemRepresentation: String(decoding: pem, as: UTF8.self))
                authentication = .token(signingKey: signingKey, keyID: key.keyID, teamID: key.teamID)
            } else {
                throw PushGatewayError(context: "auth key", underlying: "\(GatewaySecrets.providerKeyVariable) is not set")
            }
        } catch let error as PushGatewayError {
            throw error
        } catch let error as ES256KeyError {
            throw PushGatewayError(context: "auth key", underlying: "\(GatewaySecrets.providerKeyVariable): \(error)")
        } catch {
            throw PushGatewayError(context: "APNs client", underlying: "\(error)")
        }
        do {
            var client = APNsClientConfiguration(authentication: authentication)
            client.production = try APNsDestination(url: configuration.productionURL)
            client.sandbox = try APNsDestination(url: configuration.sandboxURL)
            client.trustRootsPath = configuration.apnsCAPath
            client.retryPolicy.maximumAttempts = configuration.apnsAttempts
            // The whole APNs leg, retries included, ends before the plugin stops waiting.
            client.sendTimeout = configuration.apnsTimeout
            client.requestTimeout = min(client.requestTimeout, configuration.apnsTimeout)
            // The gateway serves on these loops too (``eventLoopGroup``), and each forwards on
            // its own connections: room for one per loop, so that none borrows another's.
            client.eventLoopThreads = configuration.eventLoopThreads
            client.maximumConnectionsPerEnvironment = max(client.maximumConnectionsPerEnvironment, configuration.eventLoopThreads)
            adjust(&client)
            self.init(client: try APNsClient(configuration: client, now: now))
        } catch {
            throw PushGatewayError(context: "APNs client", underlying: error.description)
        }
    }

    public func deliver(_ request: GatewayAPNsRequest, to environment: HermesAPNsEnvironment) async -> APNsDeliveryResult {
        do {
            let response = try await client.send(Self.notification(for: request), environment: Self.environment(environment))
            return .accepted(apnsID: response.apnsID)
        } catch {
            return Self.result(of: error)
        }
    }

    /// Through the client's callback `send`: `completion` runs on the loop of the APNs
    /// connection, which is the gateway's own loop when it serves on ``eventLoopGroup``.
    public func deliver(_ request: GatewayAPNsRequest, to environment: HermesAPNsEnvironment,
                        completion: @escaping @Sendable (APNsDeliveryResult) -> Void) {
        client.send(Self.notification(for: request), environment: Self.environment(environment)) { result in
            switch result {
            case let .success(response): completion(.accepted(apnsID: response.apnsID))
            case let .failure(error): completion(Self.result(of: error))
            }
        }
    }

    private static func notification(for request: GatewayAPNsRequest) -> APNsNotification {
        APNsNotification(
            deviceToken: request.deviceToken.hex, pushType: request.pushType, topic: request.topic, priority: request.priority,
            expiration: APNsExpiration(unixSeconds: request.expiration), collapseID: request.collapseID,
            apnsID: request.apnsID, payload: request.payload)
    }

    private static func environment(_ environment: HermesAPNsEnvironment) -> APNsEnvironment {
        environment == .production ? .production : .sandbox
    }

    private static func result(of error: APNsClientError) -> APNsDeliveryResult {
        if let rejection = error.rejection {
            return .rejected(status: rejection.status, reason: rejection.reason, timestamp: rejection.timestampMilliseconds)
        }
        return .unreachable(error.description)
    }

    /// The client's loops: the gateway serves on them (see ``APNsDelivering/eventLoopGroup``).
    public var eventLoopGroup: EventLoopGroup? { client.eventLoopGroup }

    public func shutdown() async {
        await client.shutdown()
    }
}
