import CLISupport
import Foundation
import MockAPNsControl
import Synchronization
import APNsCapture
import PushRules

/// Every push the command line names, one at a time, in constant memory for capture files:
/// capture files (followed with `--follow`), a live mock's control API (`--from`), or bare
/// payloads and `.apns` files.
struct PushFeed {
    var files: [String]
    var from: ControlBaseURL?
    /// Which captured pushes to read: applied to each record of a file, and sent to the
    /// control API, so that `--wait N` counts only the pushes that match.
    var filter: CaptureFilter
    var wait: Int?
    var timeout: Int
    var follow: Bool
    /// With `follow`: stop once no new push arrived for this many seconds.
    var idleTimeout: Int?
    /// Treat every file as a bare payload (set by `--payload` or any header flag).
    var payloadMode: Bool
    var headers: PushHeaders
    let terminal: Terminal

    /// Problems with the input that did not stop the run, each naming file and line.
    private(set) var inputErrors = 0
    /// The messages of the first input errors (at most ``keptMessages``), for the JUnit
    /// report; a file of garbage has one per line, so the rest are only counted.
    private(set) var inputErrorMessages: [String] = []
    /// How many input error messages are kept.
    static let keptMessages = SkippedLineReporter.shownLines
    /// What ran short when `--wait` ran out before enough pushes arrived.
    private(set) var waitShortfall: String?
    /// Set when `--wait` ran out before enough pushes arrived.
    var waitUnsatisfied: Bool { waitShortfall != nil }
    /// Set when Ctrl-C stopped reading (not following) before the end of the input.
    private(set) var interrupted = false

    /// Calls `body` with each push, reporting damaged lines and unreadable files on standard
    /// error as it goes.
    ///
    /// Stops early when its task is cancelled (Ctrl-C): following, that is the normal end;
    /// reading, it is an input error, because the pushes after that point were never checked.
    mutating func run(_ body: (PushInput) -> Void) async {
        await run(takesPayloads: true, payloads: body, records: { body(PushInput(record: $0, sourceName: $1)) })
    }

    /// Calls `body` with each captured push and the name of where it was read, as ``run(_:)``
    /// does; a bare payload or `.apns` file, which is no capture, is an input error.
    mutating func runRecords(_ body: (CaptureRecord, String) -> Void) async {
        await run(takesPayloads: false, payloads: { _ in }, records: body)
    }

    /// - Parameter takesPayloads: whether bare payloads go to `payloads`; if not, each is an input error.
    private mutating func run(
        takesPayloads: Bool, payloads: (PushInput) -> Void, records body: (CaptureRecord, String) -> Void
    ) async {
        defer { Interruption.readingInput.store(false, ordering: .relaxed) }
        if let from {
            await readControlAPI(from, body)
            return
        }
        for file in files {
            guard !Task.isCancelled else { break }
            if payloadMode || SinglePayload.isPayloadFile(file) {
                guard takesPayloads else {
                    inputError("\(file == "-" ? "<stdin>" : file): a bare payload has no captured push to take; name capture files")
                    continue
                }
                do {
                    payloads(try SinglePayload.read(path: file, headers: headers))
                } catch {
                    inputError(error.message)
                }
            } else if follow {
                await followCapture(file, body)
            } else {
                readCapture(file, body)
            }
        }
        if Task.isCancelled, !follow, !interrupted {
            interrupted = true
            inputError("interrupted (Ctrl-C): the input was not read to its end, so the results cover only part of it")
        }
    }

    /// Whether any filter is set: matching a record costs a copy of its keys.
    private var filtering: Bool { filter != .all }

    private mutating func inputError(_ message: String) {
        inputErrors += 1
        keep([message])
        terminal.err("error: \(message)")
    }

    /// Counts the damaged lines of one file, which its reporter has already printed.
    private mutating func addSkipped(_ skipped: SkippedLineReporter) {
        skipped.finish()
        inputErrors += skipped.errorCount
        keep(skipped.shownErrorMessages)
    }

    private mutating func keep(_ messages: [String]) {
        inputErrorMessages += messages.prefix(max(0, Self.keptMessages - inputErrorMessages.count))
    }

    private mutating func readCapture(_ file: String, _ body: (CaptureRecord, String) -> Void) {
        let name = file == "-" ? "<stdin>" : file
        let skipped = SkippedLineReporter(file: name, terminal: terminal)
        let reader: CaptureFileReader
        do {
            reader = try CaptureFileReader(path: file == "-" ? "/dev/stdin" : file) { skipped.report($0) }
        } catch {
            inputError("\(name): \(error)")
            return
        }
        while true {
            let record: CaptureRecord?
            do {
                record = try reader.next()
            } catch {
                inputError("\(name): \(error)")
                break
            }
            guard let record else { break }
            if filtering, !filter.matches(record) { continue }
            body(record, name)
        }
        addSkipped(skipped)
        if Task.isCancelled {
            interrupted = true
            inputError("\(name): interrupted (Ctrl-C) after \(reader.lineNumber) lines; the rest was not read, so the results cover only part of it")
        }
    }

    private mutating func followCapture(_ file: String, _ body: (CaptureRecord, String) -> Void) async {
        // Standard input is followed as a file (redirected from one) or until its writer
        // closes it (a pipe), as tail -f does.
        let name = file == "-" ? "<stdin>" : file
        // The follower reports from inside its iterator, so the count is kept apart and
        // added once following ends; the rule is the same as for reading.
        let skipped = SkippedLineReporter(file: name, terminal: terminal)
        let terminal = terminal
        let follower = CaptureFileFollower(
            path: file == "-" ? "/dev/stdin" : file, onWarning: { skipped.report($0) },
            // Not an input error: the pushes after it are read, as tail -F reads on.
            onRestart: { terminal.err("warning: \(name): \($0)") })
        let watch = idleTimeout.map { IdleWatch(timeout: $0) }
        defer { watch?.stop() }
        do {
            for try await record in follower {
                watch?.touch()
                if filtering, !filter.matches(record) { continue }
                body(record, name)
            }
        } catch {
            inputError("\(name): \(error)")
        }
        addSkipped(skipped)
    }

    /// How long the read of what has arrived may take after Ctrl-C ended a `--wait`.
    static let afterInterruptTimeout = Duration.seconds(5)

    private mutating func readControlAPI(_ base: ControlBaseURL, _ body: (CaptureRecord, String) -> Void) async {
        let url = base.description
        let control: MockControlClient
        do {
            control = try MockControlClient(baseURL: base)
        } catch {
            inputError("\(url): \(error.detail)")
            return
        }
        let listing: PushListing
        var waitInterrupted = false
        do {
            if let wait {
                listing = try await control.waitListing(matching: filter, count: wait, timeout: .seconds(timeout))
            } else {
                listing = try await control.pushListing(matching: filter, timeout: .seconds(timeout + 10))
            }
        } catch {
            // A cancelled request fails too, but Ctrl-C says nothing of the control API.
            guard Task.isCancelled else {
                await control.close()
                inputError(Self.message(error))
                return
            }
            guard let wait else {
                await control.close()
                interrupted = true
                inputError("\(url): interrupted (Ctrl-C) before the control API answered; nothing was checked")
                return
            }
            // Ctrl-C ends a wait as its timeout would, only sooner, and as it ends --follow:
            // what has arrived is checked, and the wait is reported short. That read has a
            // timeout of its own, so it cannot hang where a cancellation does not reach.
            Interruption.readingInput.store(false, ordering: .relaxed)
            do {
                listing = try await control.pushListing(matching: filter, timeout: Self.afterInterruptTimeout, cancellable: false)
                waitInterrupted = true
            } catch {
                await control.close()
                interrupted = true
                inputError("\(url): interrupted (Ctrl-C) while waiting for \(wait) pushes, and the pushes that had arrived "
                    + "could not be read: \(error.kind == .cannotConnect ? error.detail : Self.message(error))")
                return
            }
        }
        await control.close()
        let records = listing.results
        if !listing.satisfied {
            waitShortfall = "\(url): only \(records.count) of \(wait ?? 0) pushes arrived within \(timeout) s"
        } else if waitInterrupted, let wait, records.count < wait {
            waitShortfall = "\(url): interrupted (Ctrl-C) when only \(records.count) of \(wait) pushes had arrived"
        }
        if let waitShortfall { terminal.err("warning: \(waitShortfall)") }
        for (index, result) in records.enumerated() {
            switch result {
            case .success(let record):
                body(record, url)
            case .failure(let failure) where failure.kind == .malformed:
                inputError("\(url): record \(index + 1) of the answer: \(failure)")
            case .failure(let failure):
                // Another version or kind of record: skipped, as the format says.
                terminal.err("warning: \(url): record \(index + 1) of the answer skipped: \(failure.kind.rawValue): \(failure)")
            }
        }
    }

    /// An error of the control API for a person, naming the URL the request went to.
    static func message(_ error: MockControlError) -> String {
        switch error.kind {
        case .cannotConnect:
            return "\(error.url): cannot reach the control API: \(error.detail)"
        case .answered(let status, _):
            // The whole body, quoted and escaped, and cut short: whatever answers there (a
            // proxy, another server) decides these bytes, and they must not act on the terminal.
            return "\(error.url): the control API answered \(status): \(error.quotedBody)"
        case .malformedAnswer:
            return "\(error.url): the answer is \(error.detail)"
        case .invalidBaseURL:
            return "\(error.url): \(error.detail)"
        }
    }
}

/// Ends `--follow` once the file has been quiet for `timeout` seconds, the way Ctrl-C does
/// (a SIGINT to this process), so the summary and exit status still come out. It also keeps
/// a follower whose parent died (a crashed test run) from running forever.
final class IdleWatch: Sendable {
    private let lastActivity: Atomic<Int64>
    private let stopped = Atomic<Bool>(false)

    init(timeout: Int) {
        lastActivity = Atomic(Self.now())
        let limit = Int64(timeout) * 1_000
        Thread.detachNewThread { [self] in
            while !stopped.load(ordering: .relaxed) {
                usleep(50_000)
                if Self.now() - lastActivity.load(ordering: .relaxed) >= limit {
                    if !stopped.load(ordering: .relaxed) { kill(getpid(), SIGINT) }
                    return
                }
            }
        }
    }

    func touch() { lastActivity.store(Self.now(), ordering: .relaxed) }
    func stop() { stopped.store(true, ordering: .relaxed) }

    /// Milliseconds on the monotonic clock. Whole seconds of the wall clock made the quiet
    /// time up to a second short (`--timeout 1` ended after 0.2 s), and a push written
    /// within the timeout was missed.
    private static func now() -> Int64 { Int64(DispatchTime.now().uptimeNanoseconds / 1_000_000) }
}
