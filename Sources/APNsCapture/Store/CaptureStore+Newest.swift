/// What ``CaptureStore/newest(after:matching:limit:)`` finds: the latest of what a follower
/// has not seen, and how much of it there is.
package struct CaptureNewest: Sendable {
    /// The newest matching entries numbered after the follower's sequence, newest first.
    package var entries: [CaptureEntry]
    /// How many entries in the ring are numbered after it and match: more than `entries`
    /// holds when the follower fell behind.
    package var matched: Int
    /// The last sequence number the store gave (0 before the first record).
    package var latestSequence: UInt64
}

extension CaptureStore {
    /// The newest entries numbered after `sequence` that match `filter`, for a reader that
    /// follows the store (the dashboard) and shows the latest few, never all: under load it
    /// copies `limit` entries, however many arrived.
    ///
    /// - Parameters:
    ///   - sequence: the last sequence number the reader has seen; 0 for all.
    ///   - filter: which records.
    ///   - limit: at most this many entries, the newest.
    package func newest(after sequence: UInt64, matching filter: CaptureFilter, limit: Int) -> CaptureNewest {
        let unfiltered = filter == .all
        var filter = filter
        filter.afterSequence = sequence
        return state.withLock { state in
            let latest = state.nextSequence - 1
            var found = CaptureNewest(entries: [], matched: 0, latestSequence: latest)
            // The ring's sequence numbers are consecutive and end at `latest`: without other
            // conditions, how many are newer needs no scan.
            if unfiltered { found.matched = min(state.ring.count, Int(clamping: latest &- min(sequence, latest))) }
            state.forEachEntryNewestFirst { entry in
                guard entry.sequence > sequence else { return false }
                guard filter.matches(entry) else { return true }
                if found.entries.count < limit { found.entries.append(CaptureEntry(entry)) }
                if !unfiltered { found.matched += 1 }
                return !unfiltered || found.entries.count < limit
            }
            return found
        }
    }
}
