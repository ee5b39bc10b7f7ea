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

    private static let from = CommandLineOption.value("from", "URL", help: "Read from a live apns-mock's control API (http://127.0.0.1:2199).")
    private static let wait = CommandLineOption.value("wait", "N", help: "With --from: wait until N pushes were captured.")
    private static let common: [CommandLineOption] = [
        .flag("payload", help: "The files are bare payloads, not capture files (implied by the header flags)."),
        .value("push-type", "TYPE", help: "apns-push-type of a bare payload."),
        .value("topic", "TOPIC", help: "apns-topic of a bare payload."),
        .value("priority", "N", help: "apns-priority of a bare payload."),
        .value("expiration", "SECONDS", help: "apns-expiration of a bare payload."),
        .value("collapse-id", "ID", help: "apns-collapse-id of a bare payload."),
        .flag("json", help: "Machine-readable output."),
        .flag("quiet", help: "No normal output; only the exit status (and errors)."),
    ]

    /// The feed the arguments describe.
    ///
    /// - Throws: `CommandLineError` for contradictory or malformed options.
    /// - Parameter follows: whether the command takes `--follow` (`check`, `show`), which
    ///   the usage error for a `--timeout` with nothing to time out names.
    static func feed(_ arguments: ParsedArguments, follows: Bool, terminal: Terminal) throws(CommandLineError) -> PushFeed {
        let headerFlags = ["push-type", "topic", "priority", "expiration", "collapse-id"]
        let payloadMode = arguments.has("payload") || headerFlags.contains { arguments.value($0) != nil }
        var expiration: Int64?
        if let text = arguments.value("expiration") {
            guard let value = Int64(text) else { throw CommandLineError("--expiration expects UNIX seconds, got '\(text)'") }
            expiration = value
        }
        let headers = PushHeaders(
            pushType: arguments.value("push-type"), topic: arguments.value("topic"),
            priority: try arguments.integer("priority", in: 0...100), expiration: expiration,
            collapseID: arguments.value("collapse-id"))
        let from = try arguments.value("from").map { (url) throws(CommandLineError) in try ControlEndpoint.parse(url) }
        var files = arguments.positional
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
            files: files, from: from, wait: try arguments.integer("wait", in: 1...1_000_000),
            timeout: try arguments.integer("timeout", in: 1...86_400).map { min($0, 600) } ?? 30, follow: arguments.has("follow"),
            idleTimeout: arguments.has("follow") ? try arguments.integer("timeout", in: 1...86_400) : nil,
            payloadMode: payloadMode, headers: headers, terminal: terminal)
    }
}
