/// Follows a capture file as it grows, like `tail -f`: an async sequence of every record
/// already in the file and then each new one, until the consuming task is cancelled. A pipe
/// (standard input, `/dev/stdin`, say) is followed until its writer closes it, as `tail -f`
/// does: that end is final.
///
/// It checks for new data every `pollInterval` once it has caught up (a file offers no
/// portable change notification). A partial last line is held back until its newline
/// arrives, so a line being written is never reported as damaged; when following stops
/// (the task is cancelled) with one still held back, it is reported as
/// ``CaptureReadWarning/Kind/truncatedLastLine``, exactly as ``CaptureFileReader`` reports
/// it at the end of a file.
///
/// ```swift
/// for try await record in CaptureFileFollower(path: "pushes.jsonl") { print(record.sequence) }
/// ```
public struct CaptureFileFollower: AsyncSequence, Sendable {
    public typealias Element = CaptureRecord
    public typealias Failure = any Error

    /// How often an idle follower looks for new lines.
    public static let defaultPollInterval = Duration.milliseconds(100)

    public let path: String
    public let pollInterval: Duration
    private let onWarning: @Sendable (CaptureReadWarning) -> Void

    /// Creates a follower; the file is opened when iteration starts.
    ///
    /// - Parameters:
    ///   - path: the capture file.
    ///   - pollInterval: the pause between checks once the end of the file is reached.
    ///   - onWarning: called for each line that is skipped, and for a partial last line
    ///     still held back when following stops.
    public init(
        path: String, pollInterval: Duration = defaultPollInterval,
        onWarning: @escaping @Sendable (CaptureReadWarning) -> Void = { _ in }
    ) {
        self.path = path
        self.pollInterval = pollInterval
        self.onWarning = onWarning
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(path: path, pollInterval: pollInterval, onWarning: onWarning)
    }

    /// Reads records as they appear; ends (returns nil) when its task is cancelled.
    public struct Iterator: AsyncIteratorProtocol {
        private let path: String
        private let pollInterval: Duration
        private let onWarning: @Sendable (CaptureReadWarning) -> Void
        private var reader: CaptureFileReader?

        fileprivate init(path: String, pollInterval: Duration, onWarning: @escaping @Sendable (CaptureReadWarning) -> Void) {
            self.path = path
            self.pollInterval = pollInterval
            self.onWarning = onWarning
        }

        /// The next record, waiting for one to be written if need be; nil once the task is
        /// cancelled, or a pipe's writer has closed it.
        ///
        /// - Throws: `CaptureFileError` if the file cannot be opened or read.
        public mutating func next() async throws -> CaptureRecord? {
            let reader = try self.reader ?? CaptureFileReader(path: path, nonBlocking: true, onWarning: onWarning)
            self.reader = reader
            // What the reader has already read is scanned even once cancelled (it stops at its
            // next read): a record arrives or its partial line becomes the one held back, which
            // `finish()` then reports, whenever the cancellation came.
            while true {
                if let record = try reader.nextAvailable() { return record }
                if reader.isAtEndOfStream || Task.isCancelled { break }
                do {
                    try await Task.sleep(for: pollInterval)
                } catch {
                    break
                }
            }
            // Stopped (or the pipe closed): a line still partial will not be completed for this
            // reader, so it is the file's last line as far as the reader is concerned.
            reader.finish()
            return nil
        }
    }
}
