import APNsClient
import CLISupport
import Foundation
import MockAPNs
import PushGateway

/// A mock APNs (TLS, test CA) and a gateway forwarding to it through the real APNsClient.
struct MockGateway {
    let mock: MockAPNsServer
    let gateway: PushGatewayServer
    let log: LogSink

    static func start(modes: Set<GatewayAuthMode> = Set(GatewayAuthMode.allCases),
                      configure: (inout GatewayConfiguration) -> Void = { _ in }) throws -> MockGateway {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: GatewayFixture.certs)
        do {
            var configuration = GatewayFixture.configuration(modes: modes)
            configuration.productionURL = mock.productionURL
            configuration.sandboxURL = mock.sandboxURL
            configuration.apnsCAPath = mock.trustRootsPath
            configure(&configuration)
            let delivery = try APNsClientDelivery(configuration: configuration, adjust: { client in
                // Short waits between retries keep the 5xx tests quick; the count is the gateway's.
                client.retryPolicy.initialBackoff = .milliseconds(5)
                client.retryPolicy.maximumBackoff = .milliseconds(20)
            })
            let log = LogSink.memory()
            let gateway = try GatewayFixture.start(configuration, delivery: delivery, log: log,
                                                   wallClock: { Int64(Date().timeIntervalSince1970) })
            return MockGateway(mock: mock, gateway: gateway, log: log)
        } catch {
            mock.stop()
            throw error
        }
    }

    func stop() async {
        await gateway.shutdown()
        mock.stop()
    }
}
