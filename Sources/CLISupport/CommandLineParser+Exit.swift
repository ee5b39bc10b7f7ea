import Foundation
internal import SystemSeam

extension CommandLineParser {
    /// Parses `arguments` the way every command of the suite does: `--help` prints the help
    /// (and `helpFooter`) to standard output and exits 0, `--version` prints `version` and
    /// exits 0, a usage error goes to standard error and exits 2. With an
    /// ``environmentPrefix``, options left out are read from `environment`.
    ///
    /// Settings every command of the suite reads from `environment` are checked here too, so
    /// that a bad one is a usage error before anything starts: `APNS_MOCK_EVENT_LOOP`, which
    /// picks the event loops' backend (docs/transport.md).
    ///
    /// ```swift
    /// let arguments = parser.parseOrExit(CommandLine.arguments.dropFirst(), version: "1.0.0")
    /// ```
    public func parseOrExit<Arguments: Sequence<String>>(
        _ arguments: Arguments, version: String, helpFooter: String = "",
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> ParsedArguments {
        do {
            switch try parse(arguments, environment: environmentPrefix == nil ? [:] : environment) {
            case .help:
                Self.exitAfterWriting(helpText + helpFooter, naming: "the help")
            case .version:
                Self.exitAfterWriting(version + "\n", naming: "the version")
            case let .run(parsed):
                if let value = environment[EventLoopBackendSetting.environmentVariable],
                   EventLoopBackendSetting.backendName(for: value) == nil {
                    exitWithUsageError(EventLoopBackendSetting.unknownValueMessage(value))
                }
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

    /// Writes help or version text to standard output and exits 0; text that could not be
    /// written is a failure, not a success: `Error: cannot write …` on standard error, exit 2.
    ///
    /// For commands that print help of their own (a list of subcommands) beside ``parseOrExit(_:version:helpFooter:)``.
    ///
    /// - Parameter what: names the text in the message (`the help`).
    public static func exitAfterWriting(_ text: String, naming what: String) -> Never {
        exit(StandardStreams.writeOutputOrReport(text, naming: what) ? 0 : 2)
    }
}
