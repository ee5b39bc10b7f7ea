import Foundation

/// Where output goes, and whether it is a person watching (colour and progress only then).
struct Terminal: Sendable {
    let stdoutIsTTY = isatty(1) == 1
    let stderrIsTTY = isatty(2) == 1

    func red(_ text: String) -> String { stdoutIsTTY ? "\u{1B}[31m\(text)\u{1B}[0m" : text }
    func green(_ text: String) -> String { stdoutIsTTY ? "\u{1B}[32m\(text)\u{1B}[0m" : text }
    func yellow(_ text: String) -> String { stdoutIsTTY ? "\u{1B}[33m\(text)\u{1B}[0m" : text }
    func dim(_ text: String) -> String { stdoutIsTTY ? "\u{1B}[2m\(text)\u{1B}[0m" : text }

    /// Writes to standard output.
    func out(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Writes a line to standard error.
    func err(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// A progress line on standard error, overwritten in place; nothing when not a TTY.
    func progress(_ text: String) {
        guard stderrIsTTY else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K\(text)".utf8))
    }

    /// Clears the progress line.
    func endProgress() {
        guard stderrIsTTY else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
