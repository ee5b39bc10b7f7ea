import CLISupport
import Foundation
import Synchronization

let version = "0.1.0"
let terminal = Terminal()
let commands = ["check", "show", "stats"]

let topHelp = """
    OVERVIEW: Check, show and count the pushes an apns-mock captured.

    USAGE: push-inspect <subcommand> [options]

    SUBCOMMANDS:
      check                   Check pushes against rule profiles and policy files (exit 0 pass, 1 fail, 2 error).
      show                    A table of pushes: time, token, topic, type, title and body, outcome.
      stats                   Counts by outcome, reason, topic and push type.

      See 'push-inspect help <subcommand>' for detailed help.

    """

/// A usage error before a subcommand is known.
func usageError(_ message: String) -> Never {
    terminal.err("Error: \(message)\nUsage: push-inspect <check|show|stats> [options]\nSee 'push-inspect --help'.")
    exit(2)
}

var argv = Array(CommandLine.arguments.dropFirst())
guard let first = argv.first else { usageError("name a subcommand: check, show or stats") }
switch first {
case "-h", "--help":
    terminal.out(topHelp)
    exit(0)
case "--version":
    terminal.out(version + "\n")
    exit(0)
case "help":
    let parsers = ["check": CheckCommand.parser, "show": ShowCommand.parser, "stats": StatsCommand.parser]
    guard argv.count > 1 else {
        terminal.out(topHelp)
        exit(0)
    }
    guard let parser = parsers[argv[1]] else { usageError("unknown subcommand '\(argv[1])'; expected check, show or stats") }
    guard argv.count == 2 else { usageError("help takes one subcommand, got \(argv.count - 1) arguments") }
    terminal.out(parser.helpText)
    exit(0)
default:
    break
}
guard commands.contains(first) else { usageError("unknown subcommand '\(first)'; expected check, show or stats") }
argv.removeFirst()
let parser = switch first {
case "check": CheckCommand.parser
case "show": ShowCommand.parser
default: StatsCommand.parser
}

let arguments = parser.parseOrExit(argv, version: version)

// Ctrl-C cancels the work instead of killing the process, so the summary and the exit status
// still come out: following a file, that is its normal end; reading one, the run reports the
// interruption as an input error (exit 2), since the rest of the input was never checked.
signal(SIGINT, SIG_IGN)
let work = Task { () -> Int32 in
    do {
        switch first {
        case "check": return try await CheckCommand.run(arguments, terminal: terminal)
        case "show": return try await ShowCommand.run(arguments, terminal: terminal)
        default: return try await StatsCommand.run(arguments, terminal: terminal)
        }
    } catch let error as CommandLineError {
        parser.exitWithUsageError(error.message)
    } catch {
        parser.exitWithUsageError("\(error)")
    }
}
/// How long a run may take to stop after Ctrl-C. Reading looks for the interruption every
/// 64 KiB and the summary takes a moment; only a system call blocked on the input takes longer.
let interruptGraceSeconds = 3
let interrupts = Atomic<Int>(0)

/// Ends a run that did not stop when asked.
@Sendable func exitInterrupted() -> Never {
    terminal.err("error: interrupted (Ctrl-C) while waiting for input; stopped without a summary")
    exit(2)
}

let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
interrupt.setEventHandler {
    work.cancel()
    // A system call blocked on the input (opening a FIFO with no writer, reading a silent
    // pipe) does not see the cancellation, so a run that does not stop soon, or a second
    // Ctrl-C, ends the process here.
    if interrupts.add(1, ordering: .relaxed).newValue > 1 { exitInterrupted() }
    DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(interruptGraceSeconds)) { exitInterrupted() }
}
interrupt.resume()
exit(await work.value)
