import APNsCore
import CLISupport
import Foundation
import HermesAgent
import HermesApp
import JWTVerify
import MockAPNs
import PushGateway
import PushTestSupport

/// The whole chain in one process: HermesAgent -> PushGateway (real APNsClient) -> the TLS
/// mock -> a virtual device running HermesApp.
struct HermesChain {
    static let certs = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("certs").path
    static let hmacSecret = Array("chain-test-secret".utf8)
    static let capabilityKey = Array("chain-capability-key-0123456789abcdef".utf8)
    static let tokenA = String(repeating: "ab", count: 32)
    static let tokenB = String(repeating: "cd", count: 32)

    let mock: MockAPNsServer
    let gateway: PushGatewayServer
    let store: HermesDeviceStore
    let clock = ManualClock()
    let presence = HermesViewedSessions()

    /// - Parameter delivery: runs the mock's delivery model (devices online or offline).
    static func start(delivery: Bool = false) async throws -> HermesChain {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: certs) { $0.delivery.enabled = delivery }
        do {
            var configuration = GatewayConfiguration(topic: "com.example.app")
            configuration.port = 0
            configuration.providerKey = GatewayProviderKey(keyID: "ABC123DEFG", teamID: "TEAM000001",
                                                           path: "\(certs)/AuthKey_ABC123DEFG.p8")
            configuration.productionURL = mock.productionURL
            configuration.sandboxURL = mock.sandboxURL
            configuration.apnsCAPath = mock.trustRootsPath
            let gateway = try PushGatewayServer(
                configuration: configuration, secrets: GatewaySecrets(hmacSecret: hmacSecret, capabilityKey: capabilityKey),
                delivery: try APNsClientDelivery(configuration: configuration),
                logger: Logger(label: "push-gateway", sink: .memory()))
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hermes-chain-\(UUID().uuidString)")
            return HermesChain(mock: mock, gateway: gateway, store: try HermesDeviceStore(path: folder.appendingPathComponent("devices.json").path))
        } catch {
            mock.stop()
            throw error
        }
    }

    /// An agent pushing to `pushURL` (the gateway by default) with `authorization`.
    func agent(_ authorization: HermesGatewayAuthorization = .sharedSecret(hmacSecret), pushURL: String? = nil,
               adjust: (inout HermesGatewayConfiguration) -> Void = { _ in }) throws -> HermesPushAgent {
        guard let url = URL(string: pushURL ?? gateway.url + "/push") else { throw URLError(.badURL) }
        var configuration = HermesGatewayConfiguration(pushURL: url, authorization: authorization)
        adjust(&configuration)
        return HermesPushAgent(store: store, sender: HermesGatewaySender(configuration: configuration, store: store),
                               policy: HermesSuppressionPolicy(now: clock.closure), presence: presence)
    }

    /// A virtual device for `token`, in the foreground.
    func device(_ token: String = tokenA) async throws -> HermesVirtualDevice {
        guard let url = URL(string: mock.controlURL) else { throw URLError(.badURL) }
        let device = HermesVirtualDevice(controlURL: url, deviceToken: token)
        await device.handler.setForeground(true)
        return device
    }

    func register(_ token: String) throws {
        try store.register(HermesRegisteredDevice(deviceToken: token, environment: .sandbox, appVersion: "chain"))
    }

    func stop() async {
        await gateway.shutdown(gracePeriod: .milliseconds(200))
        mock.stop()
    }
}
