import CLISupport
import Foundation
import HermesAgent
import HermesContract

// push-agent: drives the agent side of Hermes push from a shell (docs/hermes.md).

let version = SuiteVersion.current
let overview = "The Hermes push plugin's logic from a shell: register devices, fire hook events, send test pushes."
let topUsage = "push-agent <register|unregister|devices|fire|test> [options]"

let topHelp = """
    OVERVIEW: \(overview)

    USAGE: \(topUsage)

    SUBCOMMANDS:
      register      Register a device token in the store.
      unregister    Remove a device token from the store.
      devices       List the registered devices (tokens masked).
      fire          Run one hook event through the trigger mapping and suppression gates, and push.
      test          Send one push straight to the gateway for one device token.

    OPTIONS:
      --version             Show the version.
      -h, --help            Show help information.

      See 'push-agent help <subcommand>' for detailed help.

    """

func usageFailure(_ parser: CommandLineParser?, _ message: String) -> Never {
    guard let parser else {
        // A failed write has nowhere to be reported; the exit status still says it.
        StandardStreams.write("Error: \(message)\nUsage: \(topUsage)\nSee 'push-agent --help'.\n", to: StandardStreams.error)
        exit(2)
    }
    parser.exitWithUsageError(message)
}

var rawArguments = Array(CommandLine.arguments.dropFirst())
guard let first = rawArguments.first else { usageFailure(nil, "a subcommand is required") }
switch first {
case "-h", "--help":
    CommandLineParser.exitAfterWriting(topHelp, naming: "the help")
case "--version":
    CommandLineParser.exitAfterWriting(version + "\n", naming: "the version")
case "help":
    guard rawArguments.count > 1 else { CommandLineParser.exitAfterWriting(topHelp, naming: "the help") }
    guard let subcommand = Subcommand(rawValue: rawArguments[1]) else { usageFailure(nil, "unknown subcommand '\(rawArguments[1])'") }
    CommandLineParser.exitAfterWriting(subcommand.parser.helpText, naming: "the help")
default:
    break
}
guard let subcommand = Subcommand(rawValue: first) else { usageFailure(nil, "unknown subcommand '\(first)'") }
rawArguments.removeFirst()

let arguments = subcommand.parser.parseOrExit(rawArguments, version: version)

do {
    exit(try await subcommand.run(arguments))
} catch let error as CommandLineError {
    usageFailure(subcommand.parser, error.message)
} catch {
    // Output that could not be written (OutputWriteError) fails here too, as a runtime
    // failure: a script reading it must not take silence for a result.
    StandardStreams.printError("\(error)")
    exit(1)
}
