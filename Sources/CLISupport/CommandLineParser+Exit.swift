import Foundation

extension CommandLineParser {
    /// Parses `arguments` the way every command of the suite does: `--help` prints the help
    /// (and `helpFooter`) to standard output and exits 0, `--version` prints `version` and
    /// exits 0, a usage error goes to standard error and exits 2.
    ///
    /// ```swift
    /// let arguments = parser.parseOrExit(CommandLine.arguments.dropFirst(), version: "1.0.0")
    /// ```
    public func parseOrExit<Arguments: Sequence<String>>(_ arguments: Arguments, version: String, helpFooter: String = "") -> ParsedArguments {
        do {
            switch try parse(arguments) {
            case .help:
                exitAfterWriting(helpText + helpFooter)
            case .version:
                exitAfterWriting(version + "\n")
            case let .run(parsed):
                return parsed
            }
        } catch {
            exitWithUsageError(error.message)
        }
    }

    /// Prints `Error: message`, the usage line and the see-help hint to standard error, and
    /// exits with 2, the suite's code for usage and input errors.
    public func exitWithUsageError(_ message: String) -> Never {
        // A failed write has nowhere to be reported; the exit status still says it.
        StandardStreams.write(errorText(CommandLineError(message)), to: StandardStreams.error)
        exit(2)
    }

    /// Help or version that could not be written is a failure, not a success.
    private func exitAfterWriting(_ text: String) -> Never {
        if let code = StandardStreams.write(text, to: StandardStreams.output) {
            StandardStreams.write("Error: cannot write to standard output: \(String(cString: strerror(code)))\n", to: StandardStreams.error)
            exit(2)
        }
        exit(0)
    }
}
