import CLISupport
import PushRules

/// The options every command shares, and building the push feed from them.
enum InspectOptions {
    /// The input options of `check` and `show`, which print each push as it comes and so
    /// can follow files as they grow.
    static let followableInput: [CommandLineOption] = [
        from, wait,
        .value("timeout", "S", help: "With --wait: give up after S seconds (default 30). With --follow: stop after S quiet seconds."),
        .flag("follow", help: "Keep reading capture files as they grow (stop with Ctrl-C or --timeout)."),
    ] + common

    /// The input options of `stats`: no `--follow`, because its counts are of a finished
    /// capture and nothing would be shown until the follow ended.
    static let input: [CommandLineOption] = [
        from, wait, .value("timeout", "S", help: "With --wait: give up after S seconds (default 30)."),
    ] + common

    /// The input options of `export`, which takes captured pushes only: no bare payloads,
    /// so none of their header flags, and no `--follow`.
    static let captureInput: [CommandLineOption] = [
        from, wait, .value("timeout", "S", help: "With --wait: give up after S seconds (default 30)."),
    ] + filters + [quiet]

    private static let from = CommandLineOption.value("from", "URL", help: "Read from a live apns-mock's control API (http://127.0.0.1:2199).")
    private static let wait = CommandLineOption.value("wait", "N", help: "With --from: wait until N pushes were captured.")
    private static let quiet = CommandLineOption.flag("quiet", help: "No normal output; only the exit status (and errors).")
    private static let filters: [CommandLineOption] = [
        .value("apns-id", "ID", help: "Only the push answered with this apns-id."),
        .value("device-token", "HEX", help: "Only pushes to this device token, or to tokens starting with these digits."),
        .value("topic", "TOPIC", help: "Only pushes to this topic; of a bare payload, its apns-topic."),
        .value("push-type", "TYPE", help: "Only pushes of this type (as sent, or as the mock inferred it); of a bare payload, its apns-push-type."),
        .value("env", "ENV", help: "Only pushes to this environment: production or sandbox."),
        .value("outcome", "OUTCOME", help: "Only pushes accepted, rejected, or rejected for this reason (BadDeviceToken)."),
        .value("since", "TIME", help: "Only pushes received at or after TIME: UNIX seconds or RFC 3339 (2026-11-30T10:00:00Z)."),
    ]
    private static let common: [CommandLineOption] = filters + [
        .flag("payload", help: "The files are bare payloads, not capture files (implied by the header flags; by --topic and --push-type without a capture)."),
        .value("priority", "N", help: "apns-priority of a bare payload."),
        .value("expiration", "SECONDS", help: "apns-expiration of a bare payload."),
        .value("collapse-id", "ID", help: "apns-collapse-id of a bare payload."),
        .flag("json", help: "Machine-readable output."),
        quiet,
    ]

    /// The feed the arguments describe.
    ///
    /// - Throws: `CommandLineError` for contradictory or malformed options.
    /// - Parameter follows: whether the command takes `--follow` (`check`, `show`), which
    ///   the usage error for a `--timeout` with nothing to time out names.
    static func feed(_ arguments: ParsedArguments, follows: Bool, terminal: Terminal) throws(CommandLineError) -> PushFeed {
        let from = try arguments.value("from").map { (url) throws(CommandLineError) in try ControlEndpoint.parse(url) }
        var files = arguments.positional
        // --topic and --push-type set a bare payload's headers, and select captured pushes
        // once a capture is named (a capture file or --from); the other header flags only
        // have bare payloads to apply to.
        let namesCapture = from != nil || files.contains { $0 != "-" && !SinglePayload.isPayloadFile($0) }
        let payloadOnlyFlags = ["priority", "expiration", "collapse-id"]
        let payloadMode = arguments.has("payload") || payloadOnlyFlags.contains { arguments.value($0) != nil }
            || (!namesCapture && (arguments.value("topic") != nil || arguments.value("push-type") != nil))
        let onlyPayloads = payloadMode || (from == nil && !files.isEmpty && files.allSatisfy(SinglePayload.isPayloadFile))
        let filter = try PushFilterOptions.filter(arguments, payloadMode: onlyPayloads)
        var expiration: Int64?
        if let text = arguments.value("expiration") {
            guard let value = Int64(text) else { throw CommandLineError("--expiration expects UNIX seconds, got '\(text)'") }
            expiration = value
        }
        let headers = PushHeaders(
            pushType: arguments.value("push-type"), topic: arguments.value("topic"),
            priority: try arguments.integer("priority", in: 0...100), expiration: expiration,
            collapseID: arguments.value("collapse-id"))
        if from != nil, !files.isEmpty { throw CommandLineError("give files or --from, not both") }
        if from == nil, arguments.value("wait") != nil { throw CommandLineError("--wait needs --from") }
        // A timeout with nothing to time out would be ignored without a word, and a script
        // that meant `--wait N --timeout S` would read the mock once and never wait.
        if arguments.value("timeout") != nil, arguments.value("wait") == nil, !arguments.has("follow") {
            throw CommandLineError(follows ? "--timeout needs --wait or --follow" : "--timeout needs --wait")
        }
        // Standard input can be read only once: a second `-` would find it at its end (a pipe)
        // or read a redirected file again, counting every push twice.
        if files.filter({ $0 == "-" }).count > 1 { throw CommandLineError("- (standard input) is given more than once") }
        if arguments.value("wait") != nil, let timeout = try arguments.integer("timeout", in: 1...86_400), timeout > 600 {
            throw CommandLineError("--timeout with --wait is at most 600 seconds (the control API's limit)")
        }
        if from != nil, arguments.has("follow") { throw CommandLineError("--follow reads files; --from reads the mock once") }
        if files.isEmpty, from == nil {
            guard payloadMode else { throw CommandLineError("name capture files (or - for standard input), or use --from URL") }
            files = ["-"]
        }
        return PushFeed(
            files: files, from: from, filter: filter, wait: try arguments.integer("wait", in: 1...1_000_000),
            timeout: try arguments.integer("timeout", in: 1...86_400).map { min($0, 600) } ?? 30, follow: arguments.has("follow"),
            idleTimeout: arguments.has("follow") ? try arguments.integer("timeout", in: 1...86_400) : nil,
            payloadMode: payloadMode, headers: headers, terminal: terminal)
    }
}
