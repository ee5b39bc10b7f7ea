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

    public init(command: String, overview: String, usage: String, options: [CommandLineOption], acceptsPositional: Bool = false) {
        self.command = command
        self.overview = overview
        self.usage = usage
        self.options = options
        self.acceptsPositional = acceptsPositional
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
        return lines.joined(separator: "\n") + "\n"
    }

    /// The text a usage error prints to standard error.
    public func errorText(_ error: CommandLineError) -> String {
        "Error: \(error.message)\nUsage: \(usage)\nSee '\(command) --help'.\n"
    }
}

extension String {
    fileprivate func padded(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
