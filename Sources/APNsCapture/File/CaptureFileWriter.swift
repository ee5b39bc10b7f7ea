import Dispatch
import Foundation
import Synchronization
internal import SystemSeam

/// Appends records to a JSON Lines capture file without making the caller wait for the disk.
///
/// Lines are queued into a memory buffer under a short lock; a dedicated thread writes
/// whatever has accumulated, complete lines only, with one `write(2)` per batch on an
/// `O_APPEND` descriptor, as a database groups commits. When lines arrive at an idle writer
/// it lingers for ``batchDelay`` to gather a batch (waking per line would cost a thread
/// switch and a system call for every push); while busy it writes the next batch as soon as
/// the last one is done. So a line waits at most `batchDelay` plus the write in progress.
///
/// A line queued with an acknowledgement (what the server does for every push) is never
/// dropped: once its batch is written, its ``CaptureAcknowledgement`` hears `.written`, or
/// `.failed` when the write (or, with `syncsEachBatch`, `fdatasync`) failed. Queueing never
/// waits; it reports when more than ``maximumPendingBytes`` wait for the disk, and the server
/// then stops reading that connection until the line is written, so a slow disk slows the
/// clients instead of growing memory.
///
/// A line queued without one (``append(_:)``) waits, past `maximumPendingBytes`, for the
/// writer to make room (up to ``defaultMaximumWait``), and is dropped, and counted, only when
/// twice that is waiting: a file that makes no progress for that long (a hung mount). Call it
/// from a thread that may block, never from an event loop.
///
/// Durability: after ``flush()`` returns, every line appended before the call is in the
/// kernel (visible to readers, safe if this process crashes). ``close()`` also `fsync`s,
/// which makes it safe from power loss; `syncsEachBatch` does so for every batch. A crash can
/// lose lines not yet acknowledged and leave at most one partial last line; readers skip
/// it, and a writer reopening the file ends it with a newline first so that new lines never
/// merge into it.
///
/// - Important: call ``close()`` (or ``flush()``) before the process exits, as `apns-mock`
///   does on SIGINT and SIGTERM.
public final class CaptureFileWriter: Sendable {
    /// How many bytes may wait in memory for the file before queueing reports a backlog (and
    /// an unacknowledged append waits for the writer).
    public static let defaultMaximumPendingBytes = 8 << 20
    /// How long an append waits for the writer to make room before it goes on regardless.
    public static let defaultMaximumWait = Duration.seconds(2)
    /// How long an idle writer gathers lines before writing them.
    public static let defaultBatchDelay = Duration.milliseconds(1)

    /// The file written.
    public let path: String
    /// How long an idle writer gathers lines before writing them.
    public var batchDelay: Duration { core.batchDelay }
    /// Unwritten bytes past which queueing reports a backlog.
    public var maximumPendingBytes: Int { core.maximumPendingBytes }
    /// Whether each batch is followed by `fdatasync`, for durability across power loss.
    public var syncsEachBatch: Bool { core.syncsEachBatch }
    private let core: Core

    /// Opens (creating if needed) a capture file for appending and starts its writer thread.
    ///
    /// - Parameters:
    ///   - path: the file.
    ///   - truncating: start the file empty instead of appending to what is there.
    ///   - maximumPendingBytes: unwritten bytes past which an append waits for the writer
    ///     (twice this: lines are dropped).
    ///   - maximumWait: how long such an append waits at most.
    ///   - batchDelay: how long an idle writer gathers lines before writing; zero writes at once.
    ///   - syncsEachBatch: follow every batch with `fdatasync`, so an acknowledged line
    ///     survives power loss, not only a crash of this process.
    /// - Throws: `CaptureFileError` if the file cannot be opened.
    public convenience init(
        path: String, truncating: Bool = false, maximumPendingBytes: Int = defaultMaximumPendingBytes,
        maximumWait: Duration = defaultMaximumWait, batchDelay: Duration = defaultBatchDelay,
        syncsEachBatch: Bool = false
    ) throws(CaptureFileError) {
        try self.init(path: path, truncating: truncating, maximumPendingBytes: maximumPendingBytes, maximumWait: maximumWait,
                      batchDelay: batchDelay, syncsEachBatch: syncsEachBatch,
                      writing: { SystemSeam.write($0, $1, $2) }, syncing: { SystemFile.syncData($0) })
    }

    /// `write(2)` as the writer thread calls it: tests put a disk that fills mid-batch in its place.
    typealias WriteFunction = @Sendable (_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int
    /// `fdatasync(2)` as the writer thread calls it, for tests of a failing sync.
    typealias SyncFunction = @Sendable (_ fd: Int32) -> Int32

    init(
        path: String, truncating: Bool, maximumPendingBytes: Int, maximumWait: Duration, batchDelay: Duration,
        syncsEachBatch: Bool = false, writing: @escaping WriteFunction, syncing: @escaping SyncFunction = { SystemFile.syncData($0) }
    ) throws(CaptureFileError) {
        let flags = O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | (truncating ? O_TRUNC : 0)
        let fd = open(path, flags, 0o644)
        guard fd >= 0 else { throw CaptureFileError(operation: "open", path: path, code: errno) }
        // A crash may have left a partial last line; end it so our first line starts clean.
        var endsMidLine = false
        let size = lseek(fd, 0, SEEK_END)
        if size > 0 {
            var last: UInt8 = 0
            endsMidLine = pread(fd, &last, 1, size - 1) == 1 && last != UInt8(ascii: "\n")
        }
        self.path = path
        core = Core(fd: fd, path: path, maximumPendingBytes: max(0, maximumPendingBytes),
                    maximumWait: max(.zero, maximumWait), batchDelay: max(.zero, batchDelay), syncsEachBatch: syncsEachBatch,
                    writing: writing, syncing: syncing)
        let core = self.core
        let startsWithNewline = endsMidLine
        let thread = Thread { core.runWriter(endsMidLine: startsWithNewline) }
        thread.name = "capture-writer"
        thread.start()
    }

    deinit {
        close()
    }

    /// Queues one record's line. Cheap and non-blocking apart from a short lock, unless the
    /// file is behind (see the type's discussion): then it waits, so never call it on an
    /// event loop.
    public func append(_ record: CaptureRecord) {
        let line = CaptureRecordEncoder.line(record)
        appendLine { $0.append(contentsOf: line) }
    }

    /// Queues one line that `build` appends to the pending buffer, under the lock, so that
    /// lines from several threads keep the order their builders ran in.
    ///
    /// - Returns: false if the line was dropped (closed, or twice the pending limit waiting).
    @discardableResult
    func appendLine(_ build: (inout [UInt8]) -> Void) -> Bool {
        let queued = queueLine(build)
        settle(queued)
        return queued.accepted
    }

    /// What queueing a line leaves its caller to do once it holds no lock: wake the writer
    /// thread, and, for a line without an acknowledgement, wait for it to make room.
    struct QueuedLine {
        /// Whether the line is in the buffer (false: dropped, or refused because the file is
        /// closed; an acknowledged line is then failed by ``settle(_:)``).
        var accepted: Bool
        /// The writer thread sleeps; the caller must wake it, once.
        var wakesWriter: Bool
        /// Signalled when the writer has made room; nil when there is room, and always for an
        /// acknowledged line, which never waits.
        var room: DispatchSemaphore?
        /// More than `maximumPendingBytes` wait for the disk, this line included.
        var backlogged: Bool
        /// The acknowledgement of a refused line, which ``settle(_:)`` fails outside the lock.
        var refused: CaptureAcknowledgement?
    }

    /// Queues a line as ``appendLine(_:)`` does, but leaves waking the writer (and waiting
    /// for room) to the caller (``settle(_:)``). The capture store queues under its own lock
    /// and settles after releasing it, so that the other event loop never waits on that
    /// lock through a `futex` wake-up system call, or for the disk.
    ///
    /// With an `acknowledgement`, the line is never dropped and never waits: the writer
    /// calls the acknowledgement once the line's batch is written or has failed.
    ///
    /// - Parameter lines: how many lines `build` appends (a push's line and the delivery
    ///   events that follow it); the acknowledgement is the first one's.
    func queueLine(lines: Int = 1, acknowledgement: CaptureAcknowledgement? = nil, _ build: (inout [UInt8]) -> Void) -> QueuedLine {
        core.state.withLock { state -> QueuedLine in
            let limit = UInt64(core.maximumPendingBytes)
            let behind = state.acceptedBytes - state.handledBytes
            guard !state.closing, acknowledgement != nil || behind < 2 * limit else {
                state.droppedLines += 1
                return QueuedLine(accepted: false, wakesWriter: false, room: nil, backlogged: false, refused: acknowledgement)
            }
            let before = state.pending.count
            build(&state.pending)
            state.acceptedBytes += UInt64(state.pending.count - before)
            if let acknowledgement { state.acknowledgements.append((state.pendingLines, acknowledgement)) }
            state.pendingLines += lines
            let backlogged = state.acceptedBytes - state.handledBytes > limit
            guard backlogged, acknowledgement == nil else {
                return QueuedLine(accepted: true, wakesWriter: state.takeWriterWakeUp(includingLinger: backlogged), room: nil,
                                  backlogged: backlogged, refused: nil)
            }
            // Behind: room once all but `limit` of what is accepted has been handled.
            let room = DispatchSemaphore(value: 0)
            state.flushWaiters.append((state.acceptedBytes - limit, room))
            return QueuedLine(accepted: true, wakesWriter: state.takeWriterWakeUp(includingLinger: true), room: room,
                              backlogged: true, refused: nil)
        }
    }

    /// Wakes the writer thread if `queued` says so, fails the acknowledgement of a line the
    /// closed file refused, and, if an unacknowledged line found the file behind, waits until
    /// the writer has made room, for at most the `maximumWait` it was opened with.
    func settle(_ queued: QueuedLine) {
        if let refused = queued.refused {
            refused(.failed(CaptureFileError(operation: "write", path: path, code: EBADF)))
            return
        }
        if queued.wakesWriter { core.wakeWriter.signal() }
        guard let room = queued.room, room.wait(timeout: .now() + core.maximumWait) == .timedOut else { return }
        core.state.withLock { $0.flushWaiters.removeAll { $0.semaphore === room } }
    }

    /// Blocks until every line appended before the call has been written to the file.
    ///
    /// Lines that could not be written (see ``lastError``) count as handled, so this
    /// always returns.
    public func flush() {
        let waiter = core.state.withLock { state -> (DispatchSemaphore, Bool)? in
            guard state.handledBytes < state.acceptedBytes else { return nil }
            let semaphore = DispatchSemaphore(value: 0)
            state.flushWaiters.append((state.acceptedBytes, semaphore))
            return (semaphore, state.takeWriterWakeUp(includingLinger: true))
        }
        guard let (semaphore, wake) = waiter else { return }
        if wake { core.wakeWriter.signal() }
        semaphore.wait()
    }

    /// Writes what is pending, `fsync`s, stops the writer thread and closes the file.
    /// Lines appended afterwards are dropped. Calling it again does nothing.
    public func close() {
        let action = core.state.withLock { state -> (first: Bool, wake: Bool) in
            guard !state.closing else { return (false, false) }
            state.closing = true
            return (true, state.takeWriterWakeUp(includingLinger: true))
        }
        guard action.first else { return }
        if action.wake { core.wakeWriter.signal() }
        core.writerExited.wait()
        if fsync(core.fd) != 0 {
            let error = CaptureFileError(operation: "fsync", path: path, code: errno)
            core.state.withLock { $0.lastError = error }
        }
        _ = SystemSeam.close(core.fd)
    }

    /// Lines that are not in the file: dropped because the buffer was full, refused because
    /// the file was closed, or lost to a failed write.
    public var droppedRecordCount: Int { core.state.withLock { $0.droppedLines } }

    /// Lines written whose `fdatasync` failed (with `syncsEachBatch`): in the file, but not
    /// durably, and acknowledged as failed.
    public var unsyncedRecordCount: Int { core.state.withLock { $0.unsyncedLines } }

    /// Lines written to the file so far.
    public var writtenRecordCount: Int { core.state.withLock { $0.writtenLines } }

    /// The most recent failure to write, if any. Writing goes on after a failure, in case
    /// the cause (a full disk) goes away.
    public var lastError: CaptureFileError? { core.state.withLock { $0.lastError } }
}

extension CaptureFileWriter {
    /// What the writer thread and the appenders share.
    fileprivate struct State: ~Copyable {
        var pending: [UInt8] = []
        var pendingLines = 0
        /// The acknowledgements of lines in `pending`, with each line's index there.
        var acknowledgements: [(line: Int, acknowledge: CaptureAcknowledgement)] = []
        var unsyncedLines = 0
        /// Bytes ever accepted into `pending`, and bytes the writer has finished with
        /// (written or failed): `flush` waits for the second to reach the first.
        var acceptedBytes: UInt64 = 0
        var handledBytes: UInt64 = 0
        var writtenLines = 0
        var droppedLines = 0
        /// The writer is blocked on `wakeWriter`; whoever clears this signals it exactly once.
        var writerIdle = false
        /// The writer is gathering a batch, in a timed wait on `wakeWriter` that flush and
        /// close cut short.
        var writerLingering = false
        var closing = false
        var flushWaiters: [(target: UInt64, semaphore: DispatchSemaphore)] = []
        var lastError: CaptureFileError?

        /// Whether the caller must signal `wakeWriter`: true at most once per sleep, so the
        /// semaphore never collects more than one stale signal (which only causes a harmless
        /// extra loop).
        mutating func takeWriterWakeUp(includingLinger: Bool) -> Bool {
            if writerIdle {
                writerIdle = false
                return true
            }
            if includingLinger, writerLingering {
                writerLingering = false
                return true
            }
            return false
        }
    }

    /// The state shared with the writer thread, kept apart from the public object so that
    /// the thread does not keep the writer alive and `deinit` can close it.
    fileprivate final class Core: Sendable {
        /// Batches larger than this leave a fresh buffer behind instead of keeping the capacity.
        private static let retainedBufferCapacity = 4 << 20

        let fd: Int32
        let path: String
        let maximumPendingBytes: Int
        /// As a `DispatchTime` interval, for the semaphore's timed wait.
        let maximumWait: DispatchTimeInterval
        let batchDelay: Duration
        let syncsEachBatch: Bool
        /// `batchDelay` as a Dispatch interval, for the writer's timed wait.
        let batchInterval: DispatchTimeInterval
        let state = Mutex(State())
        let wakeWriter = DispatchSemaphore(value: 0)
        let writerExited = DispatchSemaphore(value: 0)
        private let writing: WriteFunction
        private let syncing: SyncFunction

        init(fd: Int32, path: String, maximumPendingBytes: Int, maximumWait: Duration, batchDelay: Duration,
             syncsEachBatch: Bool, writing: @escaping WriteFunction, syncing: @escaping SyncFunction) {
            self.writing = writing
            self.syncing = syncing
            self.syncsEachBatch = syncsEachBatch
            self.fd = fd
            self.path = path
            self.maximumPendingBytes = maximumPendingBytes
            self.maximumWait = Self.dispatchInterval(maximumWait)
            self.batchDelay = batchDelay
            batchInterval = Self.dispatchInterval(batchDelay)
        }

        /// A non-negative `duration` in nanoseconds for Dispatch; one too long for that is
        /// `.never` (wait without a deadline) rather than an arithmetic overflow.
        static func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
            let (seconds, attoseconds) = duration.components
            let (whole, overflowed) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
            let (total, overflowedAgain) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
            guard !overflowed, !overflowedAgain, let nanoseconds = Int(exactly: total) else { return .never }
            return .nanoseconds(nanoseconds)
        }

        private enum Step {
            case write(lines: Int, acknowledgements: [(line: Int, acknowledge: CaptureAcknowledgement)])
            case sleep
            case exit
        }

        /// The writer thread: swap the pending buffer out, write it, repeat; sleep only when
        /// there is nothing to write.
        func runWriter(endsMidLine: Bool) {
            var batch: [UInt8] = []
            var needsNewline = endsMidLine
            while true {
                let step = state.withLock { state -> Step in
                    if !state.pending.isEmpty {
                        swap(&state.pending, &batch)
                        let lines = state.pendingLines
                        state.pendingLines = 0
                        var acknowledgements: [(line: Int, acknowledge: CaptureAcknowledgement)] = []
                        swap(&state.acknowledgements, &acknowledgements)
                        return .write(lines: lines, acknowledgements: acknowledgements)
                    }
                    if state.closing { return .exit }
                    state.writerIdle = true
                    return .sleep
                }
                switch step {
                case .sleep:
                    wakeWriter.wait()
                    linger()
                case .exit:
                    writerExited.signal()
                    return
                case let .write(lines, acknowledgements):
                    var failure: Int32?
                    if needsNewline {
                        failure = writeAll([UInt8(ascii: "\n")]).failure
                    }
                    // The lines wholly written before a failure (a disk that filled mid-batch)
                    // are in the file; only the rest are lost.
                    var linesWritten = 0
                    if failure == nil {
                        let result = writeAll(batch)
                        failure = result.failure
                        linesWritten = failure == nil ? lines : Self.newlines(in: batch.prefix(result.written))
                    }
                    // Written but not durable: every acknowledgement of the batch fails.
                    var syncFailure: Int32?
                    if failure == nil, syncsEachBatch, syncing(fd) != 0 { syncFailure = errno }
                    // After a failed or partial write the file may end mid-line: start the
                    // next batch on a new line so no record merges into the fragment.
                    needsNewline = failure != nil
                    let byteCount = UInt64(batch.count)
                    if batch.capacity > Self.retainedBufferCapacity {
                        batch = []
                    } else {
                        batch.removeAll(keepingCapacity: true)
                    }
                    let writeError = failure.map { CaptureFileError(operation: "write", path: path, code: $0) }
                    let syncError = syncFailure.map { CaptureFileError(operation: "fdatasync", path: path, code: $0) }
                    let acknowledgedWritten = syncError == nil ? linesWritten : 0
                    let ready = state.withLock { state -> [DispatchSemaphore] in
                        state.handledBytes += byteCount
                        state.writtenLines += linesWritten
                        if syncError != nil { state.unsyncedLines += linesWritten }
                        if let error = writeError ?? syncError { state.lastError = error }
                        if failure != nil { state.droppedLines += lines - linesWritten }
                        guard !state.flushWaiters.isEmpty else { return [] }
                        let handled = state.handledBytes
                        let ready = state.flushWaiters.filter { $0.target <= handled }.map(\.semaphore)
                        state.flushWaiters.removeAll { $0.target <= handled }
                        return ready
                    }
                    for (line, acknowledge) in acknowledgements {
                        if line < acknowledgedWritten {
                            acknowledge(.written)
                        } else if let error = writeError ?? syncError {
                            acknowledge(.failed(error))
                        }
                    }
                    for semaphore in ready { semaphore.signal() }
                }
            }
        }

        /// After waking for new lines, waits `batchDelay` for more unless a flush or close is
        /// waiting, so a burst is written with one call instead of one per line.
        private func linger() {
            guard batchDelay > .zero else { return }
            let lingering = state.withLock { state -> Bool in
                guard !state.closing, state.flushWaiters.isEmpty else { return false }
                state.writerLingering = true
                return true
            }
            guard lingering else { return }
            _ = wakeWriter.wait(timeout: .now() + batchInterval)
            state.withLock { $0.writerLingering = false }
        }

        /// Writes all of `bytes`, retrying short writes and EINTR: how many were written, and
        /// `errno` if a write failed before the end.
        private func writeAll(_ bytes: [UInt8]) -> (written: Int, failure: Int32?) {
            bytes.withUnsafeBytes { buffer -> (Int, Int32?) in
                guard let base = buffer.baseAddress else { return (0, nil) }
                var offset = 0
                while offset < buffer.count {
                    let written = writing(fd, base + offset, buffer.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return (offset, errno)
                    }
                    // write(2) returns 0 only for a zero-byte request; never loop on it.
                    if written == 0 { return (offset, EIO) }
                    offset += written
                }
                return (offset, nil)
            }
        }

        private static func newlines(in bytes: ArraySlice<UInt8>) -> Int {
            bytes.reduce(0) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
        }
    }
}
