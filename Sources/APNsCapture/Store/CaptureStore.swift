import StrictJSON
import Synchronization

/// The record of every push the mock receives: a bounded in-memory ring that tests query
/// and wait on, and optionally a JSON Lines file that `push-inspect` reads.
///
/// The server records once per request from its event-loop threads, with an
/// acknowledgement when there is a file, so that its answer waits for the line and the
/// loop never does. Recording encodes the line outside the lock, then under one short lock
/// assigns the sequence number, stores the record, queues the line and checks the waiters;
/// nothing in it touches the disk.
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
    private let tokenCache = CaptureTokenCache()

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

    /// Records one request and returns its sequence number. It never touches the disk, but
    /// with a file more than `maximumPendingBytes` behind it waits for the writer (see
    /// ``CaptureFileWriter``), so call it from a thread that may block, not an event loop.
    ///
    /// Encodes the line outside the lock, then under one short lock assigns the sequence
    /// number, queues the line for the file, keeps it in the ring and offers it to waiters.
    /// The record's own ``CaptureRecord/sequence`` is not read: the store numbers it.
    @discardableResult
    public func record(_ record: CaptureRecord) -> UInt64 {
        self.record(record, acknowledgement: nil).sequence
    }

    /// What ``record(_:acknowledgement:)`` tells its caller.
    package struct Receipt {
        /// The record's sequence number.
        package var sequence: UInt64
        /// More than the file writer's `maximumPendingBytes` wait for the disk: the caller
        /// should stop taking work until `acknowledgement` is called.
        package var backlogged: Bool
    }

    /// Records as ``record(_:)`` does; with a file, `acknowledgement` is called once the
    /// line is written or has failed (on the writer's thread, or at once on this one if the
    /// file is closed). Never waits for the disk. Without a file it is not called: the
    /// record is in memory once this returns.
    package func record(_ record: CaptureRecord, acknowledgement: CaptureAcknowledgement?) -> Receipt {
        var encoded = encoding(record)
        return self.record(&encoded, followedBy: [], acknowledgement: acknowledgement)
    }

    /// A record encoded for the store: the ring entry's keys, then its tail, which is the
    /// file's line after the sequence number. Made by ``encoding(_:)``, taken by
    /// ``record(_:followedBy:acknowledgement:)``.
    package struct EncodedRecord: ~Copyable {
        var buffer: TextBuffer
        var header: CaptureEntryHeader
        var keysCount: Int
    }

    /// Encodes `record`, the part of recording that takes no lock, so that a caller can do
    /// it before taking a lock of its own around ``record(_:followedBy:acknowledgement:)``.
    package func encoding(_ record: CaptureRecord) -> EncodedRecord {
        var buffer = TextBuffer(capacity: 256 + CaptureRecordEncoder.estimatedTailSize(record))
        var header = CaptureEntryHeader.writeKeys(of: record, into: &buffer)
        let keysCount = buffer.count
        CaptureRecordEncoder.writeTail(record, tokenCache: tokenCache, into: &buffer)
        header.tailCount = buffer.count - keysCount
        return EncodedRecord(buffer: buffer, header: header, keysCount: keysCount)
    }

    /// Records an encoded record as ``record(_:acknowledgement:)`` does, and puts the lines
    /// of `events` (delivery events it caused) in the file right after its line, with the
    /// next sequence numbers: one lock, one entry in the writer's queue and at most one
    /// wake-up for them all, in one batch. The acknowledgement is the record's; the ring,
    /// its listings and its waits see only the record. Without a file, `events` are ignored.
    /// `encoded` is spent: the events' tails are encoded after its own.
    package func record(
        _ encoded: inout EncodedRecord, followedBy events: borrowing [CaptureDeliveryEvent],
        acknowledgement: CaptureAcknowledgement?
    ) -> Receipt {
        let eventCount = fileWriter == nil ? 0 : events.count
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: eventCount) { ends in
            // The events' tails go after the record's in its buffer, encoded before the lock.
            let tailEnd = encoded.keysCount + encoded.header.tailCount
            if eventCount > 0 {
                var size = 0
                for index in events.indices { size += events[index].estimatedTailSize }
                encoded.buffer.reserve(size)
                for index in events.indices {
                    events[index].writeTail(into: &encoded.buffer)
                    ends[index] = encoded.buffer.count
                }
            }
            var header = encoded.header
            let keysCount = encoded.keysCount
            let (sequence, queued, ready) = encoded.buffer.withUnsafeBytes { bytes in
                // Never nil: a buffer always has memory, and a tail at least `}` and a newline.
                guard let base = bytes.baseAddress else { return (UInt64(0), CaptureFileWriter.QueuedLine?.none, [Resumption]()) }
                let tail = UnsafeBufferPointer(rebasing: bytes[keysCount..<tailEnd])
                return state.withLock { state -> (UInt64, CaptureFileWriter.QueuedLine?, [Resumption]) in
                    let sequence = state.nextSequence
                    state.nextSequence += UInt64(1 + eventCount)
                    header.sequence = sequence
                    let entry = CaptureEntryView(header: header, body: UnsafeRawPointer(base))
                    // Queued under this lock so that the file's lines are in sequence order; the
                    // writer thread is woken (and, if the file is behind, waited for) after it.
                    let queued = fileWriter?.queueLine(lines: 1 + eventCount, acknowledgement: acknowledgement) { output in
                        CaptureRecordEncoder.writePrefix(sequence: sequence, into: &output)
                        output.append(contentsOf: tail)
                        var start = tailEnd
                        for index in 0..<eventCount {
                            CaptureRecordEncoder.writePrefix(sequence: sequence + 1 + UInt64(index), into: &output)
                            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<ends[index]]))
                            start = ends[index]
                        }
                    }
                    let ready = state.waiters.isEmpty ? [] : state.offerToWaiters(entry)
                    // The entry the ring lets go, if full (other kinds' lines take sequence numbers
                    // too, so it is read, not computed): no registration will find it there again.
                    let oldest = state.sharedCopies.isEmpty && state.amended.isEmpty ? nil : state.ring.oldestSequence
                    if state.ring.append(entry) {
                        state.droppedSinceClear += 1
                        if let oldest { state.forget(oldest) }
                    }
                    return (sequence, queued, ready)
                }
            }
            for resumption in ready { resumption.resume() }
            if let queued { fileWriter?.settle(queued) }
            return Receipt(sequence: sequence, backlogged: queued?.backlogged ?? false)
        }
    }

    /// Records in the ring that match `filter`, in sequence order.
    ///
    /// - Parameters:
    ///   - filter: which records; all by default.
    ///   - limit: at most this many, the most recent ones; all if nil.
    public func records(matching filter: CaptureFilter = .all, limit: Int? = nil) -> [CaptureRecord] {
        // Decoded after unlocking: the push path never waits for a query.
        Self.records(of: entries(matching: filter, limit: limit))
    }

    /// The ring's entries that match `filter`, in sequence order; at most `limit`, the most
    /// recent ones. For readers that want the lines themselves (the control API).
    package func entries(matching filter: CaptureFilter, limit: Int?) -> [CaptureEntry] {
        if let limit, limit <= 0 { return [] }
        return state.withLock { state in
            // Copied out under the lock: the ring reuses its bytes as it wraps.
            var matches: [CaptureEntry] = []
            if let limit {
                state.forEachEntryNewestFirst { entry in
                    if filter.matches(entry) { matches.append(CaptureEntry(entry)) }
                    return matches.count < limit
                }
                matches.reverse()
            } else {
                state.forEachEntry { entry in
                    if filter.matches(entry) { matches.append(CaptureEntry(entry)) }
                    return true
                }
            }
            return matches
        }
    }

    /// The records entries hold. Every line was written by the encoder, whose fields all
    /// round-trip (tested), so none fails to decode.
    static func records(of entries: [CaptureEntry]) -> [CaptureRecord] {
        entries.compactMap { try? $0.record() }
    }

    /// How many records in the ring match `filter`.
    public func count(matching filter: CaptureFilter = .all) -> Int {
        state.withLock { state in
            var count = 0
            state.forEachEntry { entry in
                if filter.matches(entry) { count += 1 }
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
            state.sharedCopies.removeAll()
            state.amended.removeAll()
            return state.ring.removeAll()
        }
        _ = consume old
    }

    /// Records in the ring now.
    public var count: Int { state.withLock { $0.ring.count } }

    /// Bytes the ring's arena holds (``CaptureRing``), for tests of its growth.
    var ringArenaSize: Int { state.withLock { $0.ring.arenaSize } }

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
    /// A wait that ended: resumed by the caller once the lock is released, with the entries
    /// it holds (records are decoded, if at all, by the waiting task).
    struct Resumption {
        let continuation: CheckedContinuation<EntryWait, Never>
        let matches: [CaptureEntry]
        let ending: CaptureWaitResult.Ending

        /// Hands the entries over as they are: whoever resumes (a push's event loop, a
        /// connection closing) does no decoding; the waiting task does what it needs.
        func resume() {
            continuation.resume(returning: EntryWait(entries: matches, ending: ending))
        }
    }

    /// Everything the lock protects.
    struct State: ~Copyable {
        var ring: CaptureRing
        var nextSequence: UInt64 = 1
        var droppedSinceClear = 0
        var waiters: [UInt64: Waiter] = [:]
        var nextWaiterID: UInt64 = 1
        /// While waits are pending, the copies of ring entries they hold, by sequence, so
        /// that each entry is copied once however many waits take it: 200 waits registering
        /// on a full ring copied 13 MB each, under this lock. Only entries still in the ring
        /// are kept (a registration scans only the ring), and none once no wait is pending.
        var sharedCopies: [UInt64: CaptureEntry] = [:]
        /// Entries whose answer changed after they were recorded, by sequence, shown in place
        /// of the ring's (``CaptureStore/amendOutcome(apnsID:receivedAtMicroseconds:to:)``);
        /// only entries still in the ring are kept.
        var amended: [UInt64: CaptureAmendedEntry] = [:]

        init(ring: consuming CaptureRing) {
            self.ring = ring
        }

        /// Lets go of what is kept beside the ring for the entry numbered `sequence`, which
        /// the ring dropped.
        mutating func forget(_ sequence: UInt64) {
            sharedCopies[sequence] = nil
            amended[sequence] = nil
        }

        /// Removes a waiter; the shared copies go with the last one.
        mutating func removeWaiter(_ id: UInt64) {
            waiters[id] = nil
            if waiters.isEmpty { sharedCopies.removeAll() }
        }

        /// Adds `entry` to each waiter it matches; removes and returns the waiters it satisfies
        /// whose continuation is attached. The caller resumes them after unlocking.
        mutating func offerToWaiters(_ entry: CaptureEntryView) -> [Resumption] {
            // Mutate through `values` in place: iterating the dictionary while assigning to
            // it would copy it on every record.
            var satisfied: [UInt64] = []
            // One copy (the entry's bytes are reused once the ring wraps), shared by every
            // waiter it matches: a copy each grew the mock by gigabytes under many waits.
            var shared: CaptureEntry?
            var index = waiters.startIndex
            while index != waiters.endIndex {
                // One in-place access per waiter: reading its fields one by one through the
                // subscript copied the whole waiter each time, and 200 waits slowed every push
                // ninefold.
                if waiters.values[index].offer(entry, sharing: &shared) { satisfied.append(waiters.keys[index]) }
                waiters.formIndex(after: &index)
            }
            // Kept for waits registering later, before any ends: the last one to end empties it.
            if let shared { sharedCopies[shared.sequence] = shared }
            var ready: [Resumption] = []
            for id in satisfied {
                if let resumption = end(id, .satisfied) { ready.append(resumption) }
            }
            return ready
        }

        /// Ends a wait. If its continuation is attached the waiter is removed and returned
        /// for resuming; otherwise the ending is kept until it attaches. A wait that already
        /// ended is left alone, so nothing is ever resumed twice.
        mutating func end(_ id: UInt64, _ ending: CaptureWaitResult.Ending) -> Resumption? {
            guard var waiter = waiters[id], waiter.ending == nil else { return nil }
            guard let continuation = waiter.continuation else {
                waiter.ending = ending
                waiters[id] = waiter
                return nil
            }
            removeWaiter(id)
            return Resumption(continuation: continuation, matches: waiter.matches, ending: ending)
        }
    }

    /// One pending ``wait(for:count:timeout:)``.
    struct Waiter {
        let filter: CaptureFilter
        let count: Int
        /// Matching entries since the wait began (or the last clear), in sequence order.
        var matches: [CaptureEntry]
        /// Nil until the waiting task has suspended.
        var continuation: CheckedContinuation<EntryWait, Never>?
        /// How the wait ended, if it did before its continuation was attached.
        var ending: CaptureWaitResult.Ending?

        /// Takes `entry` if the wait is open and its filter matches, in the copy `shared`
        /// (made by the first waiter that takes it); returns whether the wait now has enough.
        mutating func offer(_ entry: CaptureEntryView, sharing shared: inout CaptureEntry?) -> Bool {
            guard ending == nil, filter.matches(entry) else { return false }
            let copy = shared ?? CaptureEntry(entry)
            shared = copy
            matches.append(copy)
            return matches.count >= count
        }
    }
}
