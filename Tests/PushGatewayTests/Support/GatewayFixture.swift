import APNsCore
import CLISupport
import Foundation
import HTTPTransport
import HermesContract
import JWTVerify
import PushGateway

/// A gateway on a free port with test secrets, and the requests a plugin would send it.
enum GatewayFixture {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let certs = repositoryRoot.appendingPathComponent("certs").path
    static let topic = "com.example.app"
    static let hmacSecret = "gateway-test-secret"
    static let capabilityKey = "capability-key-for-tests-0123456789abcdef"
    static let secrets = GatewaySecrets(hmacSecret: Array(hmacSecret.utf8), capabilityKey: Array(capabilityKey.utf8))
    static let deviceToken = String(repeating: "ab", count: 32)
    static let otherDeviceToken = String(repeating: "cd", count: 32)

    static func configuration(modes: Set<GatewayAuthMode> = Set(GatewayAuthMode.allCases)) -> GatewayConfiguration {
        var configuration = GatewayConfiguration(topic: topic)
        configuration.port = 0
        configuration.authModes = modes
        configuration.providerKey = GatewayProviderKey(keyID: "ABC123DEFG", teamID: "TEAM000001", path: "\(certs)/AuthKey_ABC123DEFG.p8")
        return configuration
    }

    static func start(
        _ configuration: GatewayConfiguration = configuration(), secrets: GatewaySecrets = secrets,
        delivery: any APNsDelivering, log: LogSink = .memory(),
        wallClock: @escaping @Sendable () -> Int64 = { 1_800_000_000 },
        rateClock: @escaping @Sendable () -> Double = GatewayRateLimiter.monotonicSeconds
    ) throws -> PushGatewayServer {
        try PushGatewayServer(configuration: configuration, secrets: secrets, delivery: delivery,
                              logger: Logger(label: "push-gateway", sink: log), wallClock: wallClock, rateClock: rateClock)
    }

    /// An h2c (or TLS) client for `url`.
    static func client(for url: String, trust: String? = nil) throws -> HTTP2Client {
        let address = url.split(separator: "/").last.map(String.init) ?? ""
        let colon = address.lastIndex(of: ":") ?? address.endIndex
        let host = String(address[..<colon]), port = Int(address[address.index(after: colon)...]) ?? 0
        var configuration = HTTP2ClientConfiguration(host: host, port: port,
                                                     tls: trust.map { .makeClientConfiguration(trustRootsPath: $0) })
        configuration.serverName = "localhost"
        return try HTTP2Client(configuration: configuration)
    }

    /// A plugin request for `type`, signed with the test secret unless `hmac` or `capability` say otherwise.
    static func pushRequest(
        type: HermesPushType = .approval, token: String = deviceToken, environment: HermesAPNsEnvironment = .sandbox,
        session: String = "sess-1", secret: String = hmacSecret, capability: String? = nil
    ) throws -> HermesPushRequest {
        var request = HermesPushRequest(deviceToken: token, environment: environment, type: type, sessionID: session)
        if let capability {
            request.capability = capability
        } else {
            request.hmac = try hexHMAC(secret, request.canonicalBytes)
        }
        return request
    }

    static func hexHMAC(_ secret: String, _ message: [UInt8]) throws -> String {
        try HMACSHA256.authenticationCode(for: message, using: Array(secret.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    static func post(_ path: String, _ body: [UInt8]) -> HTTPClientRequest {
        HTTPClientRequest(method: "POST", path: path, headers: ["content-type": "application/json"], body: body)
    }

    static func post(_ path: String, _ body: String) -> HTTPClientRequest {
        post(path, Array(body.utf8))
    }
}

extension HTTPClientResponse {
    var text: String { String(decoding: body, as: UTF8.self) }

    /// The `error` member of a JSON error body.
    var errorCode: String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { return nil }
        return object["error"] as? String
    }
}
