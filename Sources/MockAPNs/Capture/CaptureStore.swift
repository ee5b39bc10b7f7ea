import Synchronization

/// The record of every push the mock receives: a bounded in-memory ring that tests query
/// and wait on, and optionally a JSON Lines file that `push-inspect` reads.
///
/// The server calls ``record(_:)`` once per request from its event-loop threads. It
/// encodes the file line outside the lock, then under one short lock assigns the sequence
/// number, stores the record, queues the line and checks the waiters; nothing in it
/// touches the disk.
///
/// ```swift
/// let capture = try CaptureStore(filePath: "pushes.jsonl")
/// // ... the server records pushes ...
/// let result = await capture.wait(for: CaptureFilter(deviceToken: token), count: 2, timeout: .seconds(5))
/// #expect(result.isSatisfied)
/// ```
public final class CaptureStore: Sendable {
    /// How many records the ring keeps unless told otherwise.
    public static let defaultCapacity = 10_000

    /// How many records the ring keeps; older ones are dropped and counted.
    public let capacity: Int
    /// Where lines go, if the store writes a file.
    public let fileWriter: CaptureFileWriter?
    let state: Mutex<State>

    /// Creates a store.
    ///
    /// - Parameters:
    ///   - capacity: records kept in memory; 0 keeps none (the file, if any, still gets them).
    ///   - fileWriter: where to append each record's line, if anywhere.
    public init(capacity: Int = defaultCapacity, fileWriter: CaptureFileWriter? = nil) {
        self.capacity = max(0, capacity)
        self.fileWriter = fileWriter
        state = Mutex(State(ring: CaptureRing(capacity: capacity)))
    }

    /// Creates a store that also appends to the capture file at `filePath`.
    ///
    /// - Throws: `CaptureFileError` if the file cannot be opened.
    public convenience init(
        capacity: Int = defaultCapacity, filePath: String, truncating: Bool = false
    ) throws(CaptureFileError) {
        self.init(capacity: capacity, fileWriter: try CaptureFileWriter(path: filePath, truncating: truncating))
    }

    /// Records one request and returns its sequence number. Cheap: it never waits for the disk.
    @discardableResult
    public func record(_ record: consuming CaptureRecord) -> UInt64 {
        var tail = CaptureLineBuffer(capacity: fileWriter == nil ? 0 : CaptureRecordEncoder.estimatedTailSize(record))
        if fileWriter != nil { CaptureRecordEncoder.writeTail(record, into: &tail) }
        // Moved into the ring through an optional: a record has some twenty reference-counted
        // fields, and each copy or destroy of it retains or releases every one of them.
        var pending = Optional(consume record)
        let (sequence, evicted, ready) = state.withLock { state -> (UInt64, CaptureRecord?, [Resumption]) in
            let sequence = state.nextSequence
            state.nextSequence += 1
            guard var record = pending.take() else { return (sequence, nil, []) }
            record.sequence = sequence
            // Queued under this lock so that the file's lines are in sequence order.
            fileWriter?.appendLine { line in
                CaptureRecordEncoder.writePrefix(sequence: sequence, into: &line)
                tail.withUnsafeBytes { line.append(contentsOf: $0) }
            }
            let ready = state.waiters.isEmpty ? [] : state.offerToWaiters(record)
            let evicted = state.ring.append(consume record)
            if evicted != nil { state.droppedSinceClear += 1 }
            return (sequence, evicted, ready)
        }
        // The evicted record is freed here, after the lock is released.
        _ = consume evicted
        for (continuation, result) in ready { continuation.resume(returning: result) }
        return sequence
    }

    /// Records in the ring that match `filter`, in sequence order.
    ///
    /// - Parameters:
    ///   - filter: which records; all by default.
    ///   - limit: at most this many, the most recent ones; all if nil.
    public func records(matching filter: CaptureFilter = .all, limit: Int? = nil) -> [CaptureRecord] {
        state.withLock { state in
            var matches: [CaptureRecord] = []
            if let limit {
                guard limit > 0 else { return [] }
                state.ring.forEachNewestFirst { record in
                    if filter.matches(record) { matches.append(record) }
                    return matches.count < limit
                }
                matches.reverse()
            } else {
                state.ring.forEach { record in
                    if filter.matches(record) { matches.append(record) }
                    return true
                }
            }
            return matches
        }
    }

    /// How many records in the ring match `filter`.
    public func count(matching filter: CaptureFilter = .all) -> Int {
        state.withLock { state in
            var count = 0
            state.ring.forEach { record in
                if filter.matches(record) { count += 1 }
                return true
            }
            return count
        }
    }

    /// Empties the ring and resets the drop counter. Sequence numbers keep counting, so they
    /// stay unique in the file; pending waits keep waiting, counting only later records.
    public func clear() {
        let old = state.withLock { state in
            state.droppedSinceClear = 0
            for id in state.waiters.keys { state.waiters[id]?.matches.removeAll() }
            return state.ring.removeAll()
        }
        _ = consume old
    }

    /// Records in the ring now.
    public var count: Int { state.withLock { $0.ring.count } }

    /// Records the ring dropped to make room since the last ``clear()``.
    public var droppedCount: Int { state.withLock { $0.droppedSinceClear } }

    /// Records ever recorded, including dropped and cleared ones.
    public var recordedCount: UInt64 { state.withLock { $0.nextSequence - 1 } }

    /// Writes every record recorded so far to the file, if there is one. Blocks until done.
    public func flush() {
        fileWriter?.flush()
    }

    /// Flushes, `fsync`s and closes the file, if there is one. The ring stays usable.
    public func close() {
        fileWriter?.close()
    }
}

extension CaptureStore {
    /// A wait that ended, with its result: resumed by the caller once the lock is released.
    typealias Resumption = (CheckedContinuation<CaptureWaitResult, Never>, CaptureWaitResult)

    /// Everything the lock protects.
    struct State: ~Copyable {
        var ring: CaptureRing
        var nextSequence: UInt64 = 1
        var droppedSinceClear = 0
        var waiters: [UInt64: Waiter] = [:]
        var nextWaiterID: UInt64 = 1

        init(ring: CaptureRing) {
            self.ring = ring
        }

        /// Adds `record` to each waiter it matches; removes and returns the waiters it satisfies
        /// whose continuation is attached. The caller resumes them after unlocking.
        mutating func offerToWaiters(
            _ record: CaptureRecord
        ) -> [Resumption] {
            // Mutate through `values` in place: iterating the dictionary while assigning to
            // it would copy it on every record.
            var satisfied: [UInt64] = []
            var index = waiters.startIndex
            while index != waiters.endIndex {
                if waiters.values[index].ending == nil, waiters.values[index].filter.matches(record) {
                    waiters.values[index].matches.append(record)
                    if waiters.values[index].matches.count >= waiters.values[index].count {
                        satisfied.append(waiters.keys[index])
                    }
                }
                waiters.formIndex(after: &index)
            }
            var ready: [Resumption] = []
            for id in satisfied {
                if let resumption = end(id, .satisfied) { ready.append(resumption) }
            }
            return ready
        }

        /// Ends a wait. If its continuation is attached the waiter is removed and returned
        /// for resuming; otherwise the ending is kept until it attaches. A wait that already
        /// ended is left alone, so nothing is ever resumed twice.
        mutating func end(
            _ id: UInt64, _ ending: CaptureWaitResult.Ending
        ) -> Resumption? {
            guard var waiter = waiters[id], waiter.ending == nil else { return nil }
            guard let continuation = waiter.continuation else {
                waiter.ending = ending
                waiters[id] = waiter
                return nil
            }
            waiters[id] = nil
            return (continuation, CaptureWaitResult(records: waiter.matches, ending: ending))
        }
    }

    /// One pending ``wait(for:count:timeout:)``.
    struct Waiter {
        let filter: CaptureFilter
        let count: Int
        /// Matching records since the wait began (or the last clear), in sequence order.
        var matches: [CaptureRecord]
        /// Nil until the waiting task has suspended.
        var continuation: CheckedContinuation<CaptureWaitResult, Never>?
        /// How the wait ended, if it did before its continuation was attached.
        var ending: CaptureWaitResult.Ending?
    }
}
