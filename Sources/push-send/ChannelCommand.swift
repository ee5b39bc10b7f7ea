import APNsClient
import APNsCore
import CLISupport
import Foundation

/// `push-send channel create|read|list|delete`: the channel management API of iOS 18
/// broadcasts, against APNs' management host or apns-mock's channel listener.
enum ChannelCommand: String, CaseIterable {
    case create, read, list, delete

    static let name = "channel"
    static let topUsage = "push-send channel <create|read|list|delete> [options]"
    static let topHelp = """
        OVERVIEW: Manage the broadcast channels of an app (iOS 18 Live Activities) through APNs' channel management API or apns-mock.

        USAGE: \(topUsage)

        SUBCOMMANDS:
          create        Create a channel and print its apns-channel-id.
          read          Print a channel's message storage policy and push type.
          list          Print the ids of the app's channels, one a line.
          delete        Delete a channel.

        OPTIONS:
          -h, --help            Show help information.

          See 'push-send channel <subcommand> --help' for detailed help.

        """

    var parser: CommandLineParser {
        let common = ConnectionOptions.options + [
            .value("url", "URL", help: "Channel management server of that environment, such as apns-mock's "
                + "https://127.0.0.1:2195 (default: Apple's api-manage-broadcast host)."),
            .value("bundle-id", "ID", help: "The app whose channels these are."),
            .value("request-id", "UUID", help: "apns-request-id (default: a generated one)."),
        ]
        let connection = "[--sandbox | --production] [--url URL] [--ca PEM] (--auth-key KEY_ID:TEAM_ID:P8_PATH | --cert PEM --key PEM) "
            + "--bundle-id ID [--request-id UUID]"
        switch self {
        case .create:
            return CommandLineParser(
                command: "push-send channel create",
                overview: "Create a Live Activity broadcast channel and print its apns-channel-id.",
                usage: "push-send channel create \(connection) [--policy no-storage|most-recent-message]",
                options: common + [.value("policy", "POLICY", help: "message-storage-policy: no-storage (0, the default) or "
                    + "most-recent-message (1).")])
        case .read:
            return CommandLineParser(
                command: "push-send channel read", overview: "Print a channel's message storage policy and push type.",
                usage: "push-send channel read \(connection) CHANNEL_ID", options: common, acceptsPositional: true)
        case .list:
            return CommandLineParser(
                command: "push-send channel list", overview: "Print the ids of the app's channels in the environment, one a line.",
                usage: "push-send channel list \(connection)", options: common)
        case .delete:
            return CommandLineParser(
                command: "push-send channel delete", overview: "Delete a channel.",
                usage: "push-send channel delete \(connection) CHANNEL_ID", options: common, acceptsPositional: true)
        }
    }

    /// Runs `push-send channel …` and exits: 0 done, 1 an APNs error or a runtime failure,
    /// 2 a usage error.
    static func run(_ arguments: [String], version: String) async -> Never {
        guard let first = arguments.first else { usageFailure("a subcommand is required: create, read, list or delete") }
        if first == "-h" || first == "--help" { CommandLineParser.exitAfterWriting(topHelp, naming: "the help") }
        guard let command = ChannelCommand(rawValue: first) else {
            usageFailure("unknown channel subcommand '\(first)'; expected create, read, list or delete")
        }
        let parser = command.parser
        let parsed = parser.parseOrExit(arguments.dropFirst(), version: version)
        let environment: APNsEnvironment
        let configuration: APNsClientConfiguration
        let bundleID: String
        var channelID: String?
        var policy = APNsChannelStoragePolicy.noMessageStored
        do {
            environment = try ConnectionOptions.environment(parsed)
            configuration = try ConnectionOptions.configuration(parsed, environment: environment) { configuration, destination in
                if environment == .production {
                    configuration.channelManagementProduction = destination
                } else {
                    configuration.channelManagementSandbox = destination
                }
            }
            guard let value = parsed.value("bundle-id") else { throw CommandLineError("missing --bundle-id") }
            bundleID = value
            switch command {
            case .read, .delete:
                guard parsed.positional.count == 1 else {
                    throw CommandLineError(parsed.positional.isEmpty ? "missing CHANNEL_ID" : "give exactly one CHANNEL_ID")
                }
                channelID = parsed.positional[0]
            case .create:
                if let text = parsed.value("policy") {
                    guard let chosen = Self.policy(text) else {
                        throw CommandLineError("--policy must be no-storage (0) or most-recent-message (1); got '\(text)'")
                    }
                    policy = chosen
                }
            case .list:
                break
            }
        } catch let error as CommandLineError {
            parser.exitWithUsageError(error.message)
        } catch {
            parser.exitWithUsageError("\(error)")
        }
        let client = ConnectionOptions.client(configuration, parser: parser)
        let status = await command.send(client, bundleID: bundleID, channelID: channelID, policy: policy,
                                        requestID: parsed.value("request-id"), environment: environment, parser: parser)
        await client.shutdown()
        exit(status)
    }

    /// Sends the request, prints the answer, and returns the exit status.
    private func send(
        _ client: APNsClient, bundleID: String, channelID: String?, policy: APNsChannelStoragePolicy, requestID: String?,
        environment: APNsEnvironment, parser: CommandLineParser
    ) async -> Int32 {
        do {
            let text: String
            switch self {
            case .create:
                let channel = try await client.createChannel(
                    bundleID: bundleID, messageStoragePolicy: policy, environment: environment, requestID: requestID)
                text = "apns-channel-id: \(channel.id)\nmessage-storage-policy: \(channel.messageStoragePolicy.rawValue)\n"
            case .read:
                let channel = try await client.channel(channelID ?? "", bundleID: bundleID, environment: environment, requestID: requestID)
                text = "apns-channel-id: \(channel.id)\nmessage-storage-policy: \(channel.messageStoragePolicy.rawValue)\n"
                    + "push-type: \(channel.pushType)\n"
            case .list:
                let ids = try await client.channelIDs(bundleID: bundleID, environment: environment, requestID: requestID)
                text = ids.map { $0 + "\n" }.joined()
            case .delete:
                try await client.deleteChannel(channelID ?? "", bundleID: bundleID, environment: environment, requestID: requestID)
                text = "deleted: \(channelID ?? "")\n"
            }
            return StandardStreams.writeOutputOrReport(text, naming: "the answer") ? 0 : 1
        } catch {
            if case .invalidRequest = error {
                StandardStreams.write(parser.errorText(CommandLineError("\(error)")), to: StandardStreams.error)
                return 2
            }
            if let rejection = error.rejection {
                _ = StandardStreams.writeOutputOrReport(ConnectionOptions.rejectionText(rejection), naming: "the answer")
            } else {
                StandardStreams.printError("\(error)")
            }
            return 1
        }
    }

    /// `no-storage`/`0` or `most-recent-message`/`1`.
    static func policy(_ text: String) -> APNsChannelStoragePolicy? {
        switch text {
        case "no-storage", "0": .noMessageStored
        case "most-recent-message", "1": .mostRecentMessageStored
        default: nil
        }
    }

    private static func usageFailure(_ message: String) -> Never {
        // A failed write has nowhere to be reported; the exit status still says it.
        StandardStreams.write("Error: \(message)\nUsage: \(topUsage)\nSee 'push-send channel --help'.\n", to: StandardStreams.error)
        exit(2)
    }
}
