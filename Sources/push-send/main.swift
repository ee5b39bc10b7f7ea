import APNsClient
import APNsCore
import CLISupport
import Foundation
import JWTVerify

let version = SuiteVersion.current
let rawArguments = Array(CommandLine.arguments.dropFirst())
if rawArguments.first == ChannelCommand.name {
    await ChannelCommand.run(Array(rawArguments.dropFirst()), version: version)
}

let parser = CommandLineParser(
    command: "push-send",
    overview: "Send one push notification to one device token, or one broadcast to a channel's subscribers, "
        + "through APNs or apns-mock, and print the answer.",
    usage: "push-send [--sandbox | --production] [--url URL] [--ca PEM] (--auth-key KEY_ID:TEAM_ID:P8_PATH | --cert PEM --key PEM) "
        + "(--topic TOPIC DEVICE_TOKEN | --channel ID --bundle-id ID) [--push-type TYPE] [--priority N] [--expiration SECONDS] "
        + "[--collapse-id ID] [--apns-id UUID] [--request-id UUID] [--payload JSON | --payload-file FILE] [--attempts N]\n"
        + "       push-send channel <create|read|list|delete> [options]",
    options: ConnectionOptions.options + [
        .value("url", "URL", help: "Server of that environment, such as https://127.0.0.1:2198 for apns-mock (default: Apple's)."),
        .value("topic", "TOPIC", help: "apns-topic: the bundle ID (plus the push type's suffix)."),
        .value("channel", "ID", help: "Broadcast to this channel's subscribers (a Live Activity push, iOS 18), not to a DEVICE_TOKEN."),
        .value("bundle-id", "ID", help: "The app a broadcast (--channel) goes to; it has no apns-topic."),
        .value("push-type", "TYPE", help: "apns-push-type (default alert; a broadcast is always liveactivity)."),
        .value("priority", "N", help: "apns-priority: 10, 5 or 1 (default: 5 for background pushes, 10 otherwise)."),
        .value("expiration", "SECONDS", help: "apns-expiration in seconds since 1970; 0 = deliver now or never."),
        .value("collapse-id", "ID", help: "apns-collapse-id."),
        .value("apns-id", "UUID", help: "apns-id (default: a generated one)."),
        .value("request-id", "UUID", help: "apns-request-id of a broadcast (default: a generated one)."),
        .value("payload", "JSON", help: "The payload (default: read from --payload-file, else standard input)."),
        .value("payload-file", "FILE", help: "Read the payload from FILE ('-' for standard input)."),
        .value("attempts", "N", help: "Attempts in all for retryable failures (default 3; 1 = no retries)."),
    ],
    acceptsPositional: true)

let helpFooter = """

    SUBCOMMANDS:
      channel               Create, read, list or delete broadcast channels (see 'push-send channel --help').

    """
let arguments = parser.parseOrExit(rawArguments, version: version, helpFooter: helpFooter)

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

/// What one run sends: a push to a device, or a broadcast to a channel.
enum Outgoing {
    case push(APNsNotification)
    case broadcast(APNsBroadcast)
}

let environment: APNsEnvironment
let outgoing: Outgoing
var configuration: APNsClientConfiguration
do {
    environment = try ConnectionOptions.environment(arguments)
    configuration = try ConnectionOptions.configuration(arguments, environment: environment) { configuration, destination in
        if environment == .production { configuration.production = destination } else { configuration.sandbox = destination }
    }
    if let attempts = try arguments.integer("attempts", in: 1...10) { configuration.retryPolicy.maximumAttempts = attempts }

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
    if let channel = arguments.value("channel") {
        guard arguments.positional.isEmpty else { throw CommandLineError("a broadcast (--channel) goes to no DEVICE_TOKEN") }
        guard arguments.value("topic") == nil else { throw CommandLineError("a broadcast (--channel) has no apns-topic; give --bundle-id") }
        guard let bundleID = arguments.value("bundle-id") else { throw CommandLineError("--channel needs --bundle-id") }
        for name in ["collapse-id", "apns-id"] where arguments.value(name) != nil {
            throw CommandLineError("a broadcast (--channel) has no \(name)")
        }
        if let text = arguments.value("push-type"), text != APNsPushType.liveactivity.rawValue {
            throw CommandLineError("a broadcast (--channel) is a liveactivity push; got --push-type '\(text)'")
        }
        outgoing = .broadcast(APNsBroadcast(
            bundleID: bundleID, channelID: channel, priority: priority ?? .immediately, expiration: expiration,
            requestID: arguments.value("request-id"), payload: readPayload()))
    } else {
        guard arguments.positional.count == 1, let deviceToken = arguments.positional.first else {
            throw CommandLineError(arguments.positional.isEmpty ? "missing DEVICE_TOKEN (or --channel ID for a broadcast)" : "give exactly one DEVICE_TOKEN")
        }
        for name in ["bundle-id", "request-id"] where arguments.value(name) != nil {
            throw CommandLineError("--\(name) is for a broadcast (--channel)")
        }
        var pushType = APNsPushType.alert
        if let text = arguments.value("push-type") {
            guard let parsed = APNsPushType(rawValue: text) else {
                throw CommandLineError("--push-type must be one of \(APNsPushType.allCases.map(\.rawValue).joined(separator: ", ")); got '\(text)'")
            }
            pushType = parsed
        }
        guard let topic = arguments.value("topic") else { throw CommandLineError("missing --topic") }
        outgoing = .push(APNsNotification(
            deviceToken: deviceToken, pushType: pushType, topic: topic, priority: priority, expiration: expiration,
            collapseID: arguments.value("collapse-id"), apnsID: arguments.value("apns-id"), payload: readPayload()))
    }
} catch let error as CommandLineError {
    parser.exitWithUsageError(error.message)
} catch {
    parser.exitWithUsageError("\(error)")
}

let client = ConnectionOptions.client(configuration, parser: parser)

/// Sends, prints the answer, and says how the process should exit: 0 accepted, 1 rejected or
/// a runtime failure, 2 a request that cannot be sent.
func run() async -> Int32 {
    do {
        var text: String
        switch outgoing {
        case let .push(notification):
            let response = try await client.send(notification, environment: environment)
            text = "status: \(response.status)\napns-id: \(response.apnsID)\n"
            if let unique = response.uniqueID { text += "apns-unique-id: \(unique)\n" }
            if response.attempts > 1 { text += "attempts: \(response.attempts)\n" }
        case let .broadcast(broadcast):
            let response = try await client.broadcast(broadcast, environment: environment)
            text = "status: \(response.status)\napns-request-id: \(response.requestID)\n"
            if response.attempts > 1 { text += "attempts: \(response.attempts)\n" }
        }
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
            var text = ConnectionOptions.rejectionText(rejection)
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
