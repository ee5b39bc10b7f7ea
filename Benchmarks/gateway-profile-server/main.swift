// The push gateway as push-gateway runs it (APNsClientDelivery on the gateway's loops,
// buffered log lines), without the CLI's signal handling, whose Dispatch sources valgrind
// cannot run: so that callgrind can count the instructions a push costs the gateway
// (scripts/bench-gateway.sh). Stops on SIGTERM/SIGINT (default action).
//
// Usage: PUSH_GATEWAY_HMAC_SECRET=… gateway-profile-server PORT APNS_URL CA_PEM KEY_ID:TEAM_ID:P8_PATH TOPIC
import CLISupport
import Foundation
import PushGateway

let arguments = CommandLine.arguments
guard arguments.count == 6, let port = Int(arguments[1]) else {
    FileHandle.standardError.write(Data("Usage: gateway-profile-server PORT APNS_URL CA_PEM KEY_ID:TEAM_ID:P8_PATH TOPIC\n".utf8))
    exit(2)
}
signal(SIGPIPE, SIG_IGN)
do {
    var configuration = GatewayConfiguration(topic: arguments[5])
    configuration.host = "127.0.0.1"
    configuration.port = port
    configuration.productionURL = arguments[2]
    configuration.sandboxURL = arguments[2]
    configuration.apnsCAPath = arguments[3]
    configuration.providerKey = try GatewayProviderKey(commandLineSpec: arguments[4])
    configuration.authModes = [.hmac]
    let unlimited = GatewayRateLimit(burst: 1_000_000, perSecond: 1_000_000)
    configuration.perDeviceRateLimit = unlimited
    configuration.totalRateLimit = unlimited
    let gateway = try PushGatewayServer(
        configuration: configuration, secrets: try GatewaySecrets.fromEnvironment(),
        delivery: try APNsClientDelivery(configuration: configuration),
        logger: Logger(label: "push-gateway", sink: .bufferedStandardError))
    FileHandle.standardOutput.write(Data("listening on \(gateway.url)\n".utf8))
    while true { sleep(3600) }
} catch {
    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
    exit(1)
}
