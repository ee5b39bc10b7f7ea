import CLISupport
import Foundation
import HermesApp

/// `hermes-device onboarding`: the app's first launch against an agent's plugin hub, on a
/// virtual clock, through HermesApp's own onboarding (``HermesVirtualOnboarding``).
enum OnboardingCommand {
    static let parser = CommandLineParser(
        command: "hermes-device onboarding",
        overview: "The Hermes app's onboarding on a virtual device: reads the agent's plugin hub, prints the readiness, what the app shows, and the date of each snooze when the user taps \"Later\".",
        usage: "hermes-device onboarding (--hub-file FILE | --agent URL) [--later N] [--clock TIME]",
        options: [
            .value("hub-file", "FILE", help: "The plugin hub's answer body, as the agent answers 200 to GET /api/dashboard/plugins/hub."),
            .value("agent", "URL", help: "Read the hub from the agent at URL instead (session token: $HERMES_SESSION_TOKEN)."),
            .value("later", "N", help: "How many times the user taps \"Later\" when the install sheet shows (default 3)."),
            .value("clock", "TIME", help: "The virtual clock's start, RFC 3339 such as 2026-12-05T09:00:00Z (default: now)."),
        ])

    static func run(_ rawArguments: [String], version: String) async -> Never {
        let arguments = parser.parseOrExit(rawArguments, version: version)
        let laterTaps: Int
        do {
            laterTaps = try arguments.integer("later", in: 0...50) ?? 3
        } catch {
            parser.exitWithUsageError(error.message)
        }
        let start: Date
        if let text = arguments.value("clock") {
            guard let date = ISO8601DateFormatter().date(from: text) else {
                parser.exitWithUsageError("--clock expects an RFC 3339 time such as 2026-12-05T09:00:00Z, got '\(text)'")
            }
            start = date
        } else {
            start = Date()
        }
        let (api, source) = agentAPI(arguments)

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hermes-onboarding-\(UUID().uuidString)")
        let onboarding = HermesVirtualOnboarding(api: api, stateFile: folder.appendingPathComponent("snooze.json"))
        let transcript = await onboarding.run(from: start, laterTaps: laterTaps)
        let written = StandardStreams.writeOutputOrReport(OnboardingReport.text(transcript, source: source), naming: "the report")
        // exit() runs no defer: the snooze state goes here.
        try? FileManager.default.removeItem(at: folder)
        exit(written ? 0 : 1)
    }

    /// The agent API the options name, and how the report names it.
    private static func agentAPI(_ arguments: ParsedArguments) -> (any HermesAgentAPI, String) {
        switch (arguments.value("hub-file"), arguments.value("agent")) {
        case (let path?, nil):
            do {
                return (HubFileAgentAPI(body: try Data(contentsOf: URL(fileURLWithPath: path))), "hub file \(path)")
            } catch {
                parser.exitWithUsageError("cannot read --hub-file \(path): \(error.localizedDescription)")
            }
        case (nil, let text?):
            guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                parser.exitWithUsageError("--agent must be an http(s) URL, such as http://127.0.0.1:9119")
            }
            let token = ProcessInfo.processInfo.environment["HERMES_SESSION_TOKEN"] ?? ""
            return (HermesAgentHTTPClient(baseURL: url, sessionToken: token, timeout: 10), "agent \(text)")
        case (.some, .some):
            parser.exitWithUsageError("give --hub-file or --agent, not both")
        case (nil, nil):
            parser.exitWithUsageError("onboarding reads the plugin hub: give --hub-file FILE or --agent URL")
        }
    }
}

/// An agent whose plugin hub answers 200 with a fixed body; it has nothing else to offer.
private struct HubFileAgentAPI: HermesAgentAPI {
    let body: Data

    func fetchPluginHub() async -> HermesHubAnswer { .response(status: 200, body: body) }

    func registerDevice(_ registration: HermesDeviceRegistration) async throws(HermesAgentAPIError) {
        throw .transport("no agent: the hub was read from a file")
    }

    func unregisterDevice(deviceToken: String) async throws(HermesAgentAPIError) {
        throw .transport("no agent: the hub was read from a file")
    }

    func sendTestNotification() async throws(HermesAgentAPIError) {
        throw .transport("no agent: the hub was read from a file")
    }
}
