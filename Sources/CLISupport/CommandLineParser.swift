/// Parses `--name value`, `--name=value` and flags for one command, and renders its help.
///
/// Help and usage follow swift-argument-parser's layout (OVERVIEW, USAGE, OPTIONS), and
/// errors follow the suite's convention: `Error: …`, the usage line, a see-help hint, exit 2.
///
/// ```swift
/// let parser = CommandLineParser(command: "apns-mock", overview: "A mock of APNs.",
///                                usage: "apns-mock [--port N]", options: [.value("port", "N", help: "Port.")])
/// let arguments = try parser.parse(CommandLine.arguments.dropFirst())
/// ```
public struct CommandLineParser: Sendable {
    public var command: String
    public var overview: String
    public var usage: String
    public var options: [CommandLineOption]
    /// Whether arguments that are not options are allowed.
    public var acceptsPositional: Bool
    /// With a prefix (`APNS_MOCK`), every option not on the command line may come from the
    /// environment as `PREFIX_NAME` (`APNS_MOCK_SANDBOX_PORT` for `--sandbox-port`), which is
    /// how a container or a CI service is configured. Nil: the environment is not read.
    public var environmentPrefix: String?

    public init(command: String, overview: String, usage: String, options: [CommandLineOption], acceptsPositional: Bool = false,
                environmentPrefix: String? = nil) {
        self.command = command
        self.overview = overview
        self.usage = usage
        self.options = options
        self.acceptsPositional = acceptsPositional
        self.environmentPrefix = environmentPrefix
    }

    /// The variable that sets `option` (`PREFIX_SANDBOX_PORT`), or nil without a prefix.
    public func environmentVariable(for option: CommandLineOption) -> String? {
        environmentPrefix.map { "\($0)_" + option.name.uppercased().replacingAll("-", with: "_") }
    }

    /// What the arguments ask for.
    public enum Request: Sendable {
        case run(ParsedArguments)
        case help
        case version
    }

    /// Parses arguments (without the program name).
    ///
    /// - Throws: `CommandLineError` for unknown options, missing values and repeats of
    ///   options that may appear once.
    public func parse<Arguments: Sequence<String>>(_ arguments: Arguments) throws(CommandLineError) -> Request {
        try parse(arguments, environment: [:])
    }

    /// Parses arguments, then takes each option they leave out from `environment` when
    /// ``environmentPrefix`` is set: a command-line option wins over its variable.
    ///
    /// A variable set to the empty string counts as unset, so that a default set in an image
    /// can be turned off. A flag's variable is `1`, `true` or `yes` for on, `0`, `false` or
    /// `no` for off; a repeatable option's variable lists its values separated by commas.
    ///
    /// - Throws: `CommandLineError` as ``parse(_:)`` does, and for a flag's variable that is
    ///   not one of those words.
    public func parse<Arguments: Sequence<String>>(_ arguments: Arguments, environment: [String: String]) throws(CommandLineError) -> Request {
        let request = try parseCommandLine(arguments)
        guard case var .run(parsed) = request else { return request }
        for option in options {
            guard let variable = environmentVariable(for: option), let text = environment[variable], !text.isEmpty,
                  !parsed.has(option.name), parsed.value(option.name) == nil
            else { continue }
            guard option.valueName != nil else {
                switch text.lowercased() {
                case "1", "true", "yes": parsed.add(flag: option.name, from: variable)
                case "0", "false", "no": break
                default: throw CommandLineError("\(variable) expects 1, true or yes (on) or 0, false or no (off), got '\(text)'")
                }
                continue
            }
            let values = option.isRepeatable
                ? text.split(separator: ",").map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
                : [text]
            for value in values { parsed.add(value: value, for: option.name, from: variable) }
        }
        return .run(parsed)
    }

    private func parseCommandLine<Arguments: Sequence<String>>(_ arguments: Arguments) throws(CommandLineError) -> Request {
        var parsed = ParsedArguments()
        var iterator = arguments.makeIterator()
        var onlyPositional = false
        while let argument = iterator.next() {
            if onlyPositional || !argument.hasPrefix("-") || argument == "-" {
                guard acceptsPositional else { throw CommandLineError("unexpected argument '\(argument)'") }
                parsed.add(positional: argument)
                continue
            }
            if argument == "--" {
                onlyPositional = true
                continue
            }
            if argument == "-h" || argument == "--help" { return .help }
            if argument == "--version" { return .version }
            var name = String(argument.drop { $0 == "-" })
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let option = options.first(where: { $0.name == name }) else {
                throw CommandLineError("unknown option '\(argument)'\(suggestion(for: name))")
            }
            if option.valueName == nil {
                guard inlineValue == nil else { throw CommandLineError("--\(name) takes no value") }
                parsed.add(flag: name)
                continue
            }
            guard let value = inlineValue ?? iterator.next() else {
                throw CommandLineError("--\(name) needs a value (\(option.valueName ?? "VALUE"))")
            }
            if !option.isRepeatable, parsed.value(name) != nil {
                throw CommandLineError("--\(name) may be given only once")
            }
            parsed.add(value: value, for: name)
        }
        return .run(parsed)
    }

    private func suggestion(for name: String) -> String {
        let scored = options.map { ($0.name, Self.editDistance(name, $0.name)) }.filter { $0.1 <= 2 }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return "" }
        return "; did you mean --\(best.0)?"
    }

    /// Levenshtein distance, for "did you mean" hints.
    static func editDistance(_ lhs: String, _ rhs: String) -> Int {
        let a = Array(lhs.utf8), b = Array(rhs.utf8)
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }

    /// The text `--help` prints.
    public var helpText: String {
        var lines = ["OVERVIEW: \(overview)", "", "USAGE: \(usage)", "", "OPTIONS:"]
        let labels = options.map { option in
            "--\(option.name)" + (option.valueName.map { " <\($0)>" } ?? "")
        }
        let width = max(22, (labels.map(\.count).max() ?? 0) + 2)
        for (option, label) in zip(options, labels) {
            let padded = label.padded(to: width)
            lines.append("  \(padded)\(option.help)\(option.isRepeatable ? " (repeatable)" : "")")
        }
        lines.append("  " + "--version".padded(to: width) + "Show the version.")
        lines.append("  " + "-h, --help".padded(to: width) + "Show help information.")
        if let environmentPrefix {
            let example = options.first { $0.valueName != nil }.flatMap { option in environmentVariable(for: option).map { ($0, option.name) } }
            lines += ["", "Each option may be set in the environment instead, as \(environmentPrefix)_<OPTION>"
                + (example.map { " (\($0.0) for --\($0.1))" } ?? "") + "; the command line wins.",
                "Flags take 1/true/yes or 0/false/no, repeatable options a comma-separated list, and an empty",
                "variable counts as unset."]
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The text a usage error prints to standard error.
    public func errorText(_ error: CommandLineError) -> String {
        "Error: \(error.message)\nUsage: \(usage)\nSee '\(command) --help'.\n"
    }
}

extension StringProtocol {
    fileprivate func trimmingSpaces() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}

extension String {
    fileprivate func replacingAll(_ target: Character, with replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }

    fileprivate func padded(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
