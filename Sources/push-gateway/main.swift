import CLISupport
import Foundation
import PushGateway

// Before any thread starts: a SIGTERM sent as soon as the banner appears must stop the gateway.
TerminationSignals.hold()
let version = SuiteVersion.current
let parser = CommandLineParser(
    command: "push-gateway",
    overview: "The Hermes push gateway: POST /push and /register (docs/push-gateway.md), forwarded to APNs.",
    usage: "push-gateway --topic BUNDLE_ID --auth-key KEY_ID:TEAM_ID:P8_PATH [--config FILE] [--host ADDR] [--port N] "
        + "[--tls-cert PEM --tls-key PEM] [--apns-production URL] [--apns-sandbox URL] [--apns-ca PEM] [--auth-modes LIST] "
        + "[--apns-attempts N] [--apns-timeout-ms N] [--threads N] [--log-level LEVEL]",
    options: [
        .value("config", "FILE", help: "Read the JSON configuration file first; flags override it."),
        .value("host", "ADDR", help: "Address to listen on (default \(GatewayConfiguration.defaultHost))."),
        .value("port", "N", help: "Port to listen on (default \(GatewayConfiguration.defaultPort); 0 picks a free port)."),
        .value("tls-cert", "PEM", help: "Serve HTTPS with this certificate chain (with --tls-key)."),
        .value("tls-key", "PEM", help: "The TLS private key."),
        .value("auth-key", "KEY_ID:TEAM_ID[:P8_PATH]", help: "The .p8 key provider tokens are signed with; without a path, "
            + "the key is read from \(GatewaySecrets.providerKeyVariable)."),
        .value("topic", "BUNDLE_ID", help: "The app's bundle id (apns-topic)."),
        .value("apns-production", "URL", help: "APNs production (default \(GatewayConfiguration.appleProductionURL))."),
        .value("apns-sandbox", "URL", help: "APNs sandbox (default \(GatewayConfiguration.appleSandboxURL))."),
        .value("apns-ca", "PEM", help: "Trust these CAs for APNs instead of the system's (e.g. the mock's certs/ca.pem)."),
        .value("auth-modes", "LIST", help: "Accepted auth modes: hmac, capability or hmac,capability (default both)."),
        .value("apns-attempts", "N", help: "Tries per push for 5xx, 429 and lost connections (default \(GatewayConfiguration.defaultAPNsAttempts))."),
        .value("apns-timeout-ms", "N", help: "The longest one push's APNs leg may take, retries included, before it is answered 503 "
            + "(default \(Int(GatewayConfiguration.defaultAPNsTimeout / .milliseconds(1))); keep it under the plugin's 5 s)."),
        .value("threads", "N", help: "Event-loop threads, each serving HTTP with its own APNs connections (default: one per core, here \(GatewayConfiguration.defaultEventLoopThreads))."),
        .value("log-level", "LEVEL", help: "trace, debug, info (default), notice, warning, error or critical."),
    ],
    environmentPrefix: "PUSH_GATEWAY")

// A long-running server: large freed buffers go back to the system (the type says why).
LargeAllocationPolicy.returnLargeBuffersToTheSystem()
let arguments = parser.parseOrExit(CommandLine.arguments.dropFirst(), version: version, helpFooter: "\nSECRETS (environment only, never flags):\n"
    + "  \(GatewaySecrets.hmacSecretVariable) or \(GatewaySecrets.hmacSecretVariable)_FILE      shared secret of hmac mode\n"
    + "  \(GatewaySecrets.capabilityKeyVariable) or \(GatewaySecrets.capabilityKeyVariable)_FILE  key capabilities are derived from\n"
    + "  \(GatewaySecrets.providerKeyVariable) or \(GatewaySecrets.providerKeyVariable)_FILE        the .p8 itself, for --auth-key KEY_ID:TEAM_ID\n")

var configuration = GatewayConfiguration(topic: "")
let secrets: GatewaySecrets
// A line per push: written in batches (at most 50 ms late, and at exit), not a write(2) each.
var logger = Logger(label: "push-gateway", sink: .bufferedStandardError)
do {
    if let path = arguments.value("config") { configuration = try GatewayConfiguration.load(path: path, base: configuration) }
    if let host = arguments.value("host") { configuration.host = host }
    if let port = try arguments.integer("port", in: 0...65535) { configuration.port = port }
    if let path = arguments.value("tls-cert") { configuration.tlsCertificatePath = path }
    if let path = arguments.value("tls-key") { configuration.tlsPrivateKeyPath = path }
    if let spec = arguments.value("auth-key") { configuration.providerKey = try GatewayProviderKey(commandLineSpec: spec) }
    if let topic = arguments.value("topic") { configuration.topic = topic }
    if let url = arguments.value("apns-production") { configuration.productionURL = url }
    if let url = arguments.value("apns-sandbox") { configuration.sandboxURL = url }
    if let path = arguments.value("apns-ca") { configuration.apnsCAPath = path }
    if let modes = arguments.value("auth-modes") { configuration.authModes = try GatewayAuthMode.parseList(modes) }
    if let attempts = try arguments.integer("apns-attempts", in: 1...GatewayConfiguration.maximumAPNsAttempts) {
        configuration.apnsAttempts = attempts
    }
    if let milliseconds = try arguments.integer("apns-timeout-ms", in: GatewayConfiguration.allowedAPNsTimeoutMilliseconds) {
        configuration.apnsTimeout = .milliseconds(milliseconds)
    }
    if let threads = try arguments.integer("threads", in: 1...GatewayConfiguration.maximumEventLoopThreads) {
        configuration.eventLoopThreads = threads
    }
    if let level = try arguments.logLevel() { logger.logLevel = level }
    // What a container started without its settings lacks first, named as flag and variable.
    if configuration.topic.isEmpty {
        throw GatewayConfigurationError("topic: set the app's bundle id (--topic BUNDLE_ID or PUSH_GATEWAY_TOPIC)")
    }
    if configuration.providerKey == nil {
        throw GatewayConfigurationError("auth key: set the signing key (--auth-key KEY_ID:TEAM_ID:P8_PATH or PUSH_GATEWAY_AUTH_KEY)")
    }
    secrets = try GatewaySecrets.fromEnvironment()
    try configuration.validate(secrets: secrets)
} catch let error as CommandLineError {
    parser.exitWithUsageError(error.message)
} catch let error as GatewayConfigurationError {
    parser.exitWithUsageError(error.message)
} catch {
    parser.exitWithUsageError("\(error)")
}

signal(SIGPIPE, SIG_IGN)
let gateway: PushGatewayServer
do {
    let delivery = try APNsClientDelivery(configuration: configuration, secrets: secrets)
    gateway = try PushGatewayServer(configuration: configuration, secrets: secrets, delivery: delivery, logger: logger)
} catch {
    // A key that cannot be read is the person's input; a port in use is a runtime failure.
    if error.context == "APNs client" || error.context == "auth key" || error.context == "configuration" {
        parser.exitWithUsageError(error.description)
    }
    logger.error("cannot start: \(error)")
    exit(1)
}

/// Stops `gateway` from the main thread, which blocks until it has.
func stop(_ gateway: PushGatewayServer) {
    let stopped = DispatchSemaphore(value: 0)
    Task.detached {
        await gateway.shutdown()
        stopped.signal()
    }
    stopped.wait()
}

// Scripts and tests read the URL from the banner, so a banner that could not be written (a
// full disk, a closed terminal) fails the start: the gateway stops before anyone is told
// where it is, exiting 1 as for any other failure to start (2 is for usage errors).
do {
    try StandardStreams.writeOutput("""
        push-gateway \(version)
          listening   \(gateway.url)
          topic       \(configuration.topic)
          auth modes  \(configuration.authModes.sorted().map(\.rawValue).joined(separator: ","))
          production  \(configuration.productionURL)
          sandbox     \(configuration.sandboxURL)

        """, naming: "the banner")
} catch {
    logger.error("cannot start: \(error)")
    stop(gateway)
    exit(1)
}

// Blocking, not `await`: with async top-level code, Dispatch parks the main thread in
// sigsuspend with every signal unblocked, where a SIGTERM would kill the gateway unflushed.
TerminationSignals.wait()
stop(gateway)
logger.info("stopped")
