internal import SystemSeam

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
/// Like `tail -F`, it notices when the file at its path is no longer what it was reading,
/// each time it has caught up: a file **truncated** below what was read (`: > pushes.jsonl`
/// between test runs, logrotate's `copytruncate`) is read again from its start, and a
/// **replaced** one (rotated: moved away and created anew) is read to its end and then the
/// new file from its start. Each restart is passed to `onRestart`
/// (``CaptureFollowRestart``). Reading on at the old offset instead missed every record
/// written after the truncation, then started mid-line once the file outgrew that offset.
/// A file truncated and written past the old offset again within one poll cannot be told
/// from one that grew, as with `tail`.
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
    private let onRestart: @Sendable (CaptureFollowRestart) -> Void

    /// Creates a follower; the file is opened when iteration starts.
    ///
    /// - Parameters:
    ///   - path: the capture file.
    ///   - pollInterval: the pause between checks once the end of the file is reached.
    ///   - onWarning: called for each line that is skipped, and for a partial last line
    ///     still held back when following stops (or when a replaced file is left).
    ///   - onRestart: called when the file was truncated or replaced and is read again from
    ///     its start.
    public init(
        path: String, pollInterval: Duration = defaultPollInterval,
        onWarning: @escaping @Sendable (CaptureReadWarning) -> Void = { _ in },
        onRestart: @escaping @Sendable (CaptureFollowRestart) -> Void = { _ in }
    ) {
        self.path = path
        self.pollInterval = pollInterval
        self.onWarning = onWarning
        self.onRestart = onRestart
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(path: path, pollInterval: pollInterval, onWarning: onWarning, onRestart: onRestart)
    }

    /// Reads records as they appear; ends (returns nil) when its task is cancelled.
    public struct Iterator: AsyncIteratorProtocol {
        private let path: String
        private let pollInterval: Duration
        private let onWarning: @Sendable (CaptureReadWarning) -> Void
        private let onRestart: @Sendable (CaptureFollowRestart) -> Void
        private var reader: CaptureFileReader?

        fileprivate init(
            path: String, pollInterval: Duration, onWarning: @escaping @Sendable (CaptureReadWarning) -> Void,
            onRestart: @escaping @Sendable (CaptureFollowRestart) -> Void
        ) {
            self.path = path
            self.pollInterval = pollInterval
            self.onWarning = onWarning
            self.onRestart = onRestart
        }

        /// The next record, waiting for one to be written if need be; nil once the task is
        /// cancelled, or a pipe's writer has closed it.
        ///
        /// - Throws: `CaptureFileError` if the file cannot be opened or read.
        public mutating func next() async throws -> CaptureRecord? {
            var reader = try self.reader ?? CaptureFileReader(path: path, nonBlocking: true, onWarning: onWarning)
            self.reader = reader
            // What the reader has already read is scanned even once cancelled (it stops at its
            // next read): a record arrives or its partial line becomes the one held back, which
            // `finish()` then reports, whenever the cancellation came.
            while true {
                if let record = try reader.nextAvailable() { return record }
                if reader.isAtEndOfStream || Task.isCancelled { break }
                // Caught up: a read at the old offset cannot tell a file cut short or replaced
                // from one that is only quiet, so look before waiting.
                if let restarted = try restart(reader) {
                    reader = restarted
                    self.reader = restarted
                    continue
                }
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

        /// The reader to go on with when the file at `path` is no longer the one `reader`
        /// read to its end: `reader` itself rewound if the file was truncated, a new reader if
        /// the path names another file; nil when nothing changed. A path that names nothing
        /// for now (moved away, not yet created anew) keeps the old file followed.
        private func restart(_ reader: CaptureFileReader) throws(CaptureFileError) -> CaptureFileReader? {
            guard !reader.isStream, let open = reader.openFileStatus() else { return nil }
            var named = stat()
            if stat(path, &named) == 0, named.st_dev != open.st_dev || named.st_ino != open.st_ino {
                let next: CaptureFileReader
                do {
                    next = try CaptureFileReader(path: path, nonBlocking: true, onWarning: onWarning)
                } catch {
                    // Gone again between the stat and the open: looked at next time.
                    return nil
                }
                // Read to its end already: a partial line left in it is its last one.
                reader.finish()
                onRestart(CaptureFollowRestart(
                    kind: .replaced,
                    message: "the path now names another file (rotated, or removed and created anew); "
                        + "the old one was read to its end, the new one is read from its start"))
                return next
            }
            let size = UInt64(Swift.max(0, open.st_size))
            guard size < reader.bytesRead else { return nil }
            let read = reader.bytesRead
            try reader.rewind()
            onRestart(CaptureFollowRestart(
                kind: .truncated,
                message: "the file is now \(size) bytes, shorter than the \(read) already read (truncated); "
                    + "reading it again from its start"))
            return reader
        }
    }
}
