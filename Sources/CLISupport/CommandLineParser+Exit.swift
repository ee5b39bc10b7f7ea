import Foundation

extension CommandLineParser {
    /// Parses `arguments` the way every command of the suite does: `--help` prints the help
    /// and `--version` the version to standard output, exit 0; a usage error prints
    /// `Error: …`, the usage line and a see-help hint to standard error, exit 2.
    ///
    /// ```swift
    /// let arguments = parser.parseOrExit(CommandLine.arguments.dropFirst(), version: "1.0.0")
    /// ```
    public func parseOrExit<Arguments: Sequence<String>>(_ arguments: Arguments, version: String) -> ParsedArguments {
        do {
            switch try parse(arguments) {
            case .help:
                FileHandle.standardOutput.write(Data(helpText.utf8))
                exit(0)
            case .version:
                FileHandle.standardOutput.write(Data((version + "\n").utf8))
                exit(0)
            case .run(let parsed):
                return parsed
            }
        } catch {
            exitWithUsageError(error.message)
        }
    }

    /// Prints `message` as a usage error (see ``errorText(_:)``) and exits with 2.
    public func exitWithUsageError(_ message: String) -> Never {
        FileHandle.standardError.write(Data(errorText(CommandLineError(message)).utf8))
        exit(2)
    }
}
