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
                FileHandle.standardOutput.write(Data((helpText + helpFooter).utf8))
                exit(0)
            case .version:
                FileHandle.standardOutput.write(Data((version + "\n").utf8))
                exit(0)
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
        FileHandle.standardError.write(Data(errorText(CommandLineError(message)).utf8))
        exit(2)
    }
}
