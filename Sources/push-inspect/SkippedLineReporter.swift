import APNsCapture
import Synchronization

/// How a skipped capture line is reported, read or followed alike, by the capture format's
/// rules (docs/capture-format.md): what the format tells readers to skip (a record of
/// another version or kind, a line over the length limit, the partial last line a crash leaves) is
/// a warning; a complete line that is not a record is damage, an input error (exit 2).
enum SkippedLine {
    enum Severity { case warning, error }

    static func severity(of kind: CaptureReadWarning.Kind) -> Severity {
        // Kinds are open: one this version does not know is treated as damage.
        [.truncatedLastLine, .truncatedBeforeRestart, .unsupportedVersion, .unsupportedKind, .lineTooLong].contains(kind)
            ? .warning : .error
    }

    /// Writes the line about `warning` to standard error.
    static func report(_ warning: CaptureReadWarning, file: String, terminal: Terminal) {
        terminal.err(text(of: warning, file: file))
    }

    /// The line about `warning`, prefixed `warning:` or `error:` by its severity.
    static func text(of warning: CaptureReadWarning, file: String) -> String {
        let place = "\(file):\(warning.lineNumber)"
        switch (severity(of: warning.kind), warning.kind) {
        case (.warning, .truncatedLastLine):
            return "warning: \(place): skipped a truncated last line (\(warning.message))"
        case (.warning, _):
            return "warning: \(place): skipped: \(warning.kind.rawValue): \(warning.message)"
        case (.error, _):
            return "error: \(errorMessage(of: warning, file: file))"
        }
    }

    /// The message of a damaged line, without the `error:` prefix (the JUnit report's text).
    static func errorMessage(of warning: CaptureReadWarning, file: String) -> String {
        "\(file):\(warning.lineNumber): \(warning.kind.rawValue): \(warning.message)"
    }
}

/// Reports the lines skipped in one capture file as they are skipped, and counts the errors
/// among them. Only the first ``shownLines`` are printed, because a file of garbage
/// (`/dev/urandom`) would print one line per line without end; the rest are counted and
/// summed up by ``finish()``. A follower calls it from its iterator, which may run on any
/// thread.
final class SkippedLineReporter: Sendable {
    /// How many skipped lines are printed in full, per file.
    static let shownLines = 100

    private let file: String
    private let terminal: Terminal
    private let skipped = Atomic<Int>(0)
    private let errors = Atomic<Int>(0)
    private let unshownErrors = Atomic<Int>(0)
    private let shownErrors = Mutex<[String]>([])

    init(file: String, terminal: Terminal) {
        self.file = file
        self.terminal = terminal
    }

    /// The input errors among the lines skipped so far, shown or not.
    var errorCount: Int { errors.load(ordering: .relaxed) }

    /// The messages of the input errors that were printed (at most ``shownLines``), for the
    /// JUnit report.
    var shownErrorMessages: [String] { shownErrors.withLock { $0 } }

    func report(_ warning: CaptureReadWarning) {
        let number = skipped.add(1, ordering: .relaxed).newValue
        let isError = SkippedLine.severity(of: warning.kind) == .error
        if isError { errors.add(1, ordering: .relaxed) }
        if number <= Self.shownLines {
            SkippedLine.report(warning, file: file, terminal: terminal)
            if isError {
                let message = SkippedLine.errorMessage(of: warning, file: file)
                shownErrors.withLock { $0.append(message) }
            }
        } else {
            if isError { unshownErrors.add(1, ordering: .relaxed) }
            if number == Self.shownLines + 1 {
                terminal.err("warning: \(file): more than \(Self.shownLines) lines skipped; the rest are counted, not shown")
            }
        }
    }

    /// Prints how many skipped lines were not shown, if any.
    func finish() {
        let unshown = skipped.load(ordering: .relaxed) - Self.shownLines
        guard unshown > 0 else { return }
        let unshownErrors = unshownErrors.load(ordering: .relaxed)
        terminal.err("\(unshownErrors > 0 ? "error" : "warning"): \(file): and \(unshown) more skipped line\(unshown == 1 ? "" : "s") "
            + "not shown (\(unshownErrors) of them damaged)")
    }
}
