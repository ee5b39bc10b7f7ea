import CLISupport
import Foundation

let version = SuiteVersion.current
let terminal = Terminal()
let commands = ["check", "show", "stats", "export", "delivery"]

let topHelp = """
    OVERVIEW: Check, show and count the pushes an apns-mock captured.

    USAGE: push-inspect <subcommand> [options]

    SUBCOMMANDS:
      check                   Check pushes against rule profiles and policy files (exit 0 pass, 1 fail, 2 error).
      show                    A table of pushes: time, token, topic, type, title and body, outcome.
      stats                   Counts by outcome, reason, topic and push type.
      export                  Write each push as a simulator .apns file (--apns DIR).
      delivery                What became of accepted pushes: delivered, stored, discarded (apns-mock --delivery).

      See 'push-inspect help <subcommand>' for detailed help.

    """

/// A usage error before a subcommand is known.
func usageError(_ message: String) -> Never {
    terminal.err("Error: \(message)\nUsage: push-inspect <check|show|stats|export|delivery> [options]\nSee 'push-inspect --help'.")
    exit(2)
}

var argv = Array(CommandLine.arguments.dropFirst())
guard let first = argv.first else { usageError("name a subcommand: check, show, stats, export or delivery") }
switch first {
case "-h", "--help":
    terminal.out(topHelp)
    exit(terminal.exitStatus(0))
case "--version":
    terminal.out(version + "\n")
    exit(terminal.exitStatus(0))
case "help":
    let parsers = ["check": CheckCommand.parser, "show": ShowCommand.parser, "stats": StatsCommand.parser, "export": ExportCommand.parser, "delivery": DeliveryCommand.parser]
    guard argv.count > 1 else {
        terminal.out(topHelp)
        exit(terminal.exitStatus(0))
    }
    guard let parser = parsers[argv[1]] else { usageError("unknown subcommand '\(argv[1])'; expected check, show, stats, export or delivery") }
    guard argv.count == 2 else { usageError("help takes one subcommand, got \(argv.count - 1) arguments") }
    terminal.out(parser.helpText)
    exit(terminal.exitStatus(0))
default:
    break
}
guard commands.contains(first) else { usageError("unknown subcommand '\(first)'; expected check, show, stats, export or delivery") }
argv.removeFirst()
let parser = switch first {
case "check": CheckCommand.parser
case "show": ShowCommand.parser
case "export": ExportCommand.parser
case "delivery": DeliveryCommand.parser
default: StatsCommand.parser
}

let arguments = parser.parseOrExit(argv, version: version)

// Ctrl-C cancels the work instead of killing the process (Interruption says how).
Interruption.listen()
let work = Task { () -> Int32 in
    do {
        switch first {
        case "check": return try await CheckCommand.run(arguments, terminal: terminal)
        case "show": return try await ShowCommand.run(arguments, terminal: terminal)
        case "export": return try await ExportCommand.run(arguments, terminal: terminal)
        case "delivery": return try await DeliveryCommand.run(arguments, terminal: terminal)
        default: return try await StatsCommand.run(arguments, terminal: terminal)
        }
    } catch let error as CommandLineError {
        parser.exitWithUsageError(error.message)
    } catch {
        parser.exitWithUsageError("\(error)")
    }
}
Interruption.begin(work)
exit(terminal.exitStatus(await work.value))
