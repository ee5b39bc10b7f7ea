import CLISupport
import Foundation
import HermesAgent
import HermesContract

/// The subcommands, each with its own options.
enum Subcommand: String, CaseIterable {
    case register, unregister, devices, fire, test

    static let storeOption = CommandLineOption.value(
        "store", "FILE", help: "The device store (default $HERMES_PUSH_STORE or ./push-devices.json).")
    static let gatewayOptions: [CommandLineOption] = [
        .value("gateway", "URL", help: "The gateway's push URL, such as http://127.0.0.1:8088/push."),
        .value("secret", "TEXT", help: "Shared-secret HMAC mode (or set $HERMES_PUSH_SECRET)."),
        .flag("capability", help: "Capability mode: /register per device, refresh once after 403."),
        .value("attempts", "N", help: "Requests per push before giving up on 5xx/network errors (default 3)."),
    ]

    var parser: CommandLineParser {
        switch self {
        case .register:
            CommandLineParser(
                command: "push-agent register", overview: "Register a device token in the store.",
                usage: "push-agent register --device-token HEX [--env sandbox|production] [--app-version V] [--store FILE]",
                options: [.value("device-token", "HEX", help: "The APNs device token."),
                          .value("env", "ENV", help: "sandbox (default) or production."),
                          .value("app-version", "V", help: "The app version (default 0.0.0)."), Self.storeOption])
        case .unregister:
            CommandLineParser(
                command: "push-agent unregister", overview: "Remove a device token from the store.",
                usage: "push-agent unregister --device-token HEX [--store FILE]",
                options: [.value("device-token", "HEX", help: "The APNs device token."), Self.storeOption])
        case .devices:
            CommandLineParser(
                command: "push-agent devices", overview: "List the registered devices, tokens masked.",
                usage: "push-agent devices [--store FILE]", options: [Self.storeOption])
        case .fire:
            CommandLineParser(
                command: "push-agent fire",
                overview: "Run one hook event through the trigger mapping and the suppression gates, then push to every registered device.",
                usage: "push-agent fire --hook NAME --session ID [--tool NAME] [--surface NAME] [--completed] [--interrupted] "
                    + "[--turn-seconds N] [--viewing] --gateway URL (--secret TEXT | --capability) [--store FILE]",
                options: [.value("hook", "NAME", help: HermesHookEvent.hookNames.joined(separator: ", ") + "."),
                          .value("session", "ID", help: "session_id."),
                          .value("tool", "NAME", help: "tool_name, for pre_tool_call (clarify triggers)."),
                          .value("surface", "NAME", help: "For pre_approval_request: gateway (pushes) or cli."),
                          .flag("completed", help: "For on_session_end: the session completed."),
                          .flag("interrupted", help: "For on_session_end: the session was interrupted."),
                          .value("turn-seconds", "N", help: "Start the turn (pre_llm_call) N seconds before this event."),
                          .flag("viewing", help: "A live client is viewing the session."),
                          Self.storeOption] + Self.gatewayOptions)
        case .test:
            CommandLineParser(
                command: "push-agent test", overview: "Send one push straight to the gateway, bypassing the gates.",
                usage: "push-agent test --device-token HEX [--env ENV] [--type TYPE] [--session ID] --gateway URL "
                    + "(--secret TEXT | --capability) [--store FILE]",
                options: [.value("device-token", "HEX", help: "The APNs device token."),
                          .value("env", "ENV", help: "sandbox (default) or production."),
                          .value("type", "TYPE", help: "approval (default), clarify, complete or error."),
                          .value("session", "ID", help: "session_id (default test-session)."),
                          Self.storeOption] + Self.gatewayOptions)
        }
    }

    /// Runs the subcommand; returns the exit code.
    func run(_ arguments: ParsedArguments) async throws -> Int32 {
        switch self {
        case .register:
            let store = try Self.store(arguments)
            let device = HermesRegisteredDevice(deviceToken: try Self.required(arguments, "device-token"),
                                                environment: try Self.environment(arguments),
                                                appVersion: arguments.value("app-version") ?? "0.0.0")
            try Self.storeChange { () throws(HermesDeviceStoreError) in try store.register(device) }
            try StandardStreams.writeOutput(
                "registered \(Self.masked(device.deviceToken)) (\(device.environment.rawValue)); \(store.count) device(s)\n",
                naming: "the result")
            return 0
        case .unregister:
            let store = try Self.store(arguments)
            let token = try Self.required(arguments, "device-token")
            let removed = try Self.storeChange { () throws(HermesDeviceStoreError) in try store.unregister(deviceToken: token) }
            try StandardStreams.writeOutput((removed ? "unregistered " : "not registered: ") + Self.masked(token) + "\n", naming: "the result")
            return 0
        case .devices:
            for device in try Self.store(arguments).all {
                try StandardStreams.writeOutput(
                    "\(Self.masked(device.deviceToken))  \(device.environment.rawValue)  app \(device.appVersion)\n",
                    naming: "the device list")
            }
            return 0
        case .fire:
            return try await Self.fire(arguments)
        case .test:
            let sender = HermesGatewaySender(configuration: try Self.gateway(arguments),
                                             store: arguments.value("store") != nil ? try Self.store(arguments) : nil)
            guard let type = HermesPushType(rawValue: arguments.value("type") ?? "approval") else {
                throw CommandLineError("--type must be approval, clarify, complete or error")
            }
            let session = arguments.value("session") ?? "test-session"
            guard HermesSessionID.isValid(session) else { throw CommandLineError("--session must match \(HermesSessionID.pattern)") }
            let device = HermesRegisteredDevice(deviceToken: try Self.required(arguments, "device-token"),
                                                environment: try Self.environment(arguments), appVersion: "push-agent")
            let result = await sender.send(type, sessionID: session, to: device)
            try StandardStreams.writeOutput("\(result)\n", naming: "the result")
            return Self.exitCode([result])
        }
    }
}
