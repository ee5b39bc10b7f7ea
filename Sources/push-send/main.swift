import APNsClient
import APNsCore
import CLISupport
import Foundation
import JWTVerify

let version = SuiteVersion.current
let parser = CommandLineParser(
    command: "push-send",
    overview: "Send one push notification to one device token through APNs or apns-mock, and print the answer.",
    usage: "push-send [--sandbox | --production] [--url URL] [--ca PEM] (--auth-key KEY_ID:TEAM_ID:P8_PATH | --cert PEM --key PEM) "
        + "--topic TOPIC [--push-type TYPE] [--priority N] [--expiration SECONDS] [--collapse-id ID] [--apns-id UUID] "
        + "[--payload JSON | --payload-file FILE] [--attempts N] DEVICE_TOKEN",
    options: [
        .flag("sandbox", help: "Send to the sandbox (development) environment (the default)."),
        .flag("production", help: "Send to the production environment."),
        .value("url", "URL", help: "Server of that environment, such as https://127.0.0.1:2198 for apns-mock (default: Apple's)."),
        .value("ca", "PEM", help: "Trust these CA certificates instead of the system's."),
        .value("auth-key", "KEY_ID:TEAM_ID:P8_PATH", help: "Token authentication with this .p8 key."),
        .value("cert", "PEM", help: "Certificate authentication (mutual TLS): the client certificate."),
        .value("key", "PEM", help: "The client certificate's private key."),
        .value("topic", "TOPIC", help: "apns-topic: the bundle ID (plus the push type's suffix)."),
        .value("push-type", "TYPE", help: "apns-push-type (default alert)."),
        .value("priority", "N", help: "apns-priority: 10, 5 or 1 (default: 5 for background pushes, 10 otherwise)."),
        .value("expiration", "SECONDS", help: "apns-expiration in seconds since 1970; 0 = deliver now or never."),
        .value("collapse-id", "ID", help: "apns-collapse-id."),
        .value("apns-id", "UUID", help: "apns-id (default: a generated one)."),
        .value("payload", "JSON", help: "The payload (default: read from --payload-file, else standard input)."),
        .value("payload-file", "FILE", help: "Read the payload from FILE ('-' for standard input)."),
        .value("attempts", "N", help: "Attempts in all for retryable failures (default 3; 1 = no retries)."),
    ],
    acceptsPositional: true)

let arguments = parser.parseOrExit(CommandLine.arguments.dropFirst(), version: version)

func readPayload() -> [UInt8] {
    if let text = arguments.value("payload") {
        if arguments.value("payload-file") != nil { parser.exitWithUsageError("give --payload or --payload-file, not both") }
        return Array(text.utf8)
    }
    let path = arguments.value("payload-file") ?? "-"
    if path == "-" {
        if arguments.value("payload-file") == nil, isatty(0) != 0 {
            parser.exitWithUsageError("no payload: give --payload JSON, --payload-file FILE, or pipe it to standard input")
        }
        return Array(FileHandle.standardInput.readDataToEndOfFile())
    }
    guard let data = FileManager.default.contents(atPath: path) else { parser.exitWithUsageError("cannot read the payload file '\(path)'") }
    return Array(data)
}

let environment: APNsEnvironment
let notification: APNsNotification
var configuration: APNsClientConfiguration
do {
    guard arguments.positional.count == 1, let deviceToken = arguments.positional.first else {
        throw CommandLineError(arguments.positional.isEmpty ? "missing DEVICE_TOKEN" : "give exactly one DEVICE_TOKEN")
    }
    if arguments.has("sandbox"), arguments.has("production") { throw CommandLineError("give --sandbox or --production, not both") }
    environment = arguments.has("production") ? .production : .sandbox
    let authentication: APNsAuthentication
    switch (arguments.value("auth-key"), arguments.value("cert"), arguments.value("key")) {
    case let (spec?, nil, nil): authentication = try .token(commandLineSpec: spec)
    case let (nil, certificate?, key?): authentication = .certificate(certificateChainPath: certificate, privateKeyPath: key)
    case (nil, nil, nil): throw CommandLineError("give --auth-key KEY_ID:TEAM_ID:P8_PATH, or --cert PEM and --key PEM")
    case (_?, _, _): throw CommandLineError("give --auth-key or --cert/--key, not both")
    default: throw CommandLineError("--cert and --key go together")
    }
    configuration = APNsClientConfiguration(authentication: authentication)
    configuration.trustRootsPath = arguments.value("ca")
    if let url = arguments.value("url") {
        let destination = try APNsDestination(url: url)
        if environment == .production { configuration.production = destination } else { configuration.sandbox = destination }
    }
    if let attempts = try arguments.integer("attempts", in: 1...10) { configuration.retryPolicy.maximumAttempts = attempts }
    configuration.maximumConnectionsPerEnvironment = 1
    configuration.idlePingInterval = nil
    try configuration.validate()

    var pushType = APNsPushType.alert
    if let text = arguments.value("push-type") {
        guard let parsed = APNsPushType(rawValue: text) else {
            throw CommandLineError("--push-type must be one of \(APNsPushType.allCases.map(\.rawValue).joined(separator: ", ")); got '\(text)'")
        }
        pushType = parsed
    }
    var priority: APNsPriority?
    if let text = arguments.value("priority") {
        guard let parsed = APNsPriority(headerValue: text) else { throw CommandLineError("--priority must be 10, 5 or 1; got '\(text)'") }
        priority = parsed
    }
    var expiration: APNsExpiration?
    if let text = arguments.value("expiration") {
        guard let seconds = Int64(text), seconds >= 0 else {
            throw CommandLineError("--expiration must be seconds since 1970 (0 or more); got '\(text)'")
        }
        expiration = APNsExpiration(unixSeconds: seconds)
    }
    guard let topic = arguments.value("topic") else { throw CommandLineError("missing --topic") }
    notification = APNsNotification(
        deviceToken: deviceToken, pushType: pushType, topic: topic, priority: priority, expiration: expiration,
        collapseID: arguments.value("collapse-id"), apnsID: arguments.value("apns-id"), payload: readPayload())
} catch let error as CommandLineError {
    parser.exitWithUsageError(error.message)
} catch {
    parser.exitWithUsageError("\(error)")
}

signal(SIGPIPE, SIG_IGN)
let client: APNsClient
do {
    client = try APNsClient(configuration: configuration)
} catch {
    parser.exitWithUsageError("\(error)")
}

/// Sends, prints the answer, and says how the process should exit: 0 accepted, 1 rejected or
/// a runtime failure, 2 a request that cannot be sent.
func run() async -> Int32 {
    do {
        let response = try await client.send(notification, environment: environment)
        var text = "status: \(response.status)\napns-id: \(response.apnsID)\n"
        if let unique = response.uniqueID { text += "apns-unique-id: \(unique)\n" }
        if response.attempts > 1 { text += "attempts: \(response.attempts)\n" }
        // An answer that could not be printed is a runtime failure: a script must not take
        // an accepted push it never saw the apns-id of for a success.
        return StandardStreams.writeOutputOrReport(text, naming: "the answer") ? 0 : 1
    } catch {
        switch error {
        case .invalidRequest:
            StandardStreams.write(parser.errorText(CommandLineError("\(error)")), to: StandardStreams.error)
            return 2
        default:
            break
        }
        if let rejection = error.rejection {
            var text = "status: \(rejection.status)\nreason: \(rejection.reason.wireValue)\napns-id: \(rejection.apnsID)\n"
            if let unique = rejection.uniqueID { text += "apns-unique-id: \(unique)\n" }
            if let timestamp = rejection.timestampMilliseconds { text += "timestamp: \(timestamp)\n" }
            if case let .retriesExhausted(attempts, _) = error { text += "attempts: \(attempts)\n" }
            // 1 whether or not it could be printed: the push failed.
            _ = StandardStreams.writeOutputOrReport(text, naming: "the answer")
        } else {
            StandardStreams.printError("\(error)")
        }
        return 1
    }
}

let status = await run()
await client.shutdown()
exit(status)
