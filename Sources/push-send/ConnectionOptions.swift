import APNsClient
import APNsCore
import CLISupport
import Foundation

/// The options every push-send command shares: the environment, the server, trust and
/// credentials, and how they become the client's configuration.
enum ConnectionOptions {
    static let options: [CommandLineOption] = [
        .flag("sandbox", help: "Use the sandbox (development) environment (the default)."),
        .flag("production", help: "Use the production environment."),
        .value("ca", "PEM", help: "Trust these CA certificates instead of the system's."),
        .value("auth-key", "KEY_ID:TEAM_ID:P8_PATH", help: "Token authentication with this .p8 key."),
        .value("cert", "PEM", help: "Certificate authentication (mutual TLS): the client certificate."),
        .value("key", "PEM", help: "The client certificate's private key."),
    ]

    /// The environment the flags choose.
    static func environment(_ arguments: ParsedArguments) throws(CommandLineError) -> APNsEnvironment {
        if arguments.has("sandbox"), arguments.has("production") { throw CommandLineError("give --sandbox or --production, not both") }
        return arguments.has("production") ? .production : .sandbox
    }

    /// A configuration with the flags' credentials and trust, one connection and no idle
    /// PINGs (a command sends one request); `--url`, when given, replaces the destination
    /// `place` sets for `environment`.
    static func configuration(
        _ arguments: ParsedArguments, environment: APNsEnvironment,
        place: (inout APNsClientConfiguration, APNsDestination) -> Void
    ) throws -> APNsClientConfiguration {
        let authentication: APNsAuthentication
        switch (arguments.value("auth-key"), arguments.value("cert"), arguments.value("key")) {
        case let (spec?, nil, nil): authentication = try .token(commandLineSpec: spec)
        case let (nil, certificate?, key?): authentication = .certificate(certificateChainPath: certificate, privateKeyPath: key)
        case (nil, nil, nil): throw CommandLineError("give --auth-key KEY_ID:TEAM_ID:P8_PATH, or --cert PEM and --key PEM")
        case (_?, _, _): throw CommandLineError("give --auth-key or --cert/--key, not both")
        default: throw CommandLineError("--cert and --key go together")
        }
        var configuration = APNsClientConfiguration(authentication: authentication)
        configuration.trustRootsPath = arguments.value("ca")
        if let url = arguments.value("url") { place(&configuration, try APNsDestination(url: url)) }
        configuration.maximumConnectionsPerEnvironment = 1
        configuration.idlePingInterval = nil
        try configuration.validate()
        return configuration
    }

    /// The client for `configuration`, with SIGPIPE ignored (a closed standard output is an
    /// error to report, not a signal); a client that cannot start is a usage error.
    static func client(_ configuration: APNsClientConfiguration, parser: CommandLineParser) -> APNsClient {
        signal(SIGPIPE, SIG_IGN)
        do {
            return try APNsClient(configuration: configuration)
        } catch {
            parser.exitWithUsageError("\(error)")
        }
    }

    /// `status`, `reason` and the ids of an APNs error answer, as push-send prints them.
    static func rejectionText(_ rejection: APNsRejection) -> String {
        var text = "status: \(rejection.status)\nreason: \(rejection.reason.wireValue)\n"
        if let requestID = rejection.requestID {
            text += "apns-request-id: \(requestID)\n"
        } else {
            text += "apns-id: \(rejection.apnsID)\n"
        }
        if let unique = rejection.uniqueID { text += "apns-unique-id: \(unique)\n" }
        if let timestamp = rejection.timestampMilliseconds { text += "timestamp: \(timestamp)\n" }
        return text
    }
}
