import CLISupport
import Foundation
import Synchronization

/// Where output goes, and whether it is a person watching (colour and progress only then).
///
/// Writes never trap: a failed write to standard output is remembered and turns the exit
/// status into 2 (``exitStatus(_:)``), since a report that did not arrive must not pass; a
/// failed write to standard error has nowhere to be reported and is dropped.
struct Terminal: Sendable {
    let stdoutIsTTY = isatty(1) == 1
    let stderrIsTTY = isatty(2) == 1

    /// The `errno` of the first failed write to standard output; 0 while all arrived.
    private static let outputError = Atomic<Int32>(0)

    func red(_ text: String) -> String { stdoutIsTTY ? "\u{1B}[31m\(text)\u{1B}[0m" : text }
    func green(_ text: String) -> String { stdoutIsTTY ? "\u{1B}[32m\(text)\u{1B}[0m" : text }
    func yellow(_ text: String) -> String { stdoutIsTTY ? "\u{1B}[33m\(text)\u{1B}[0m" : text }
    func dim(_ text: String) -> String { stdoutIsTTY ? "\u{1B}[2m\(text)\u{1B}[0m" : text }

    /// Writes to standard output.
    func out(_ text: String) {
        out(bytes: Array(text.utf8))
    }

    /// Writes bytes to standard output.
    func out(bytes: [UInt8]) {
        if let code = StandardStreams.write(bytes, to: StandardStreams.output) {
            _ = Self.outputError.compareExchange(expected: 0, desired: code, ordering: .relaxed)
        }
    }

    /// Writes a line to standard error.
    func err(_ line: String) {
        StandardStreams.write(line + "\n", to: StandardStreams.error)
    }

    /// A progress line on standard error, overwritten in place; nothing when not a TTY.
    func progress(_ text: String) {
        guard stderrIsTTY else { return }
        StandardStreams.write("\r\u{1B}[K\(text)", to: StandardStreams.error)
    }

    /// Clears the progress line.
    func endProgress() {
        guard stderrIsTTY else { return }
        StandardStreams.write("\r\u{1B}[K", to: StandardStreams.error)
    }

    /// `status`, or 2 with an error on standard error if any output was lost.
    func exitStatus(_ status: Int32) -> Int32 {
        let code = Self.outputError.load(ordering: .relaxed)
        guard code != 0 else { return status }
        err("error: cannot write to standard output: \(String(cString: strerror(code))); the output is incomplete")
        return 2
    }
}
