import CLISupport
import Foundation
import HermesAgent
import HermesContract

// push-agent: drives the agent side of Hermes push from a shell (docs/hermes.md).

let version = "0.1.0"
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

func standardOutput(_ text: String) {
    FileHandle.standardOutput.write(Data(text.utf8))
}

func usageFailure(_ parser: CommandLineParser?, _ message: String) -> Never {
    guard let parser else {
        FileHandle.standardError.write(Data("Error: \(message)\nUsage: \(topUsage)\nSee 'push-agent --help'.\n".utf8))
        exit(2)
    }
    parser.exitWithUsageError(message)
}

var rawArguments = Array(CommandLine.arguments.dropFirst())
guard let first = rawArguments.first else { usageFailure(nil, "a subcommand is required") }
switch first {
case "-h", "--help":
    standardOutput(topHelp)
    exit(0)
case "--version":
    standardOutput(version + "\n")
    exit(0)
case "help":
    guard rawArguments.count > 1 else {
        standardOutput(topHelp)
        exit(0)
    }
    guard let subcommand = Subcommand(rawValue: rawArguments[1]) else { usageFailure(nil, "unknown subcommand '\(rawArguments[1])'") }
    standardOutput(subcommand.parser.helpText)
    exit(0)
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
    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
    exit(1)
}
