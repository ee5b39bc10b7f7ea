extension CaptureStore {
    /// The record numbered `sequence`, while the ring still holds it; nil once it was
    /// dropped or cleared, or before it was recorded.
    ///
    /// Looked for newest first, since the pushes a person asks about are the recent ones;
    /// only the one entry found is copied and decoded, after the lock is released.
    public func record(sequence: UInt64) -> CaptureRecord? {
        let found = state.withLock { state -> CaptureEntry? in
            var found: CaptureEntry?
            state.forEachEntryNewestFirst { entry in
                if entry.sequence == sequence { found = CaptureEntry(entry) }
                return entry.sequence > sequence
            }
            return found
        }
        return found.flatMap { try? $0.record() }
    }

    /// How the pushes in the ring that match `filter` were answered: counted from the
    /// entries' keys under the lock, with no record copied or decoded, so a page may ask
    /// for it as often as it lists pushes.
    public func outcomeCounts(matching filter: CaptureFilter = .all) -> CaptureOutcomeCounts {
        state.withLock { state in
            var counts = CaptureOutcomeCounts()
            var byReason: [CaptureOutcomeCounts.ReasonKey: Int] = [:]
            state.forEachEntry { entry in
                guard filter.matches(entry) else { return true }
                counts.total += 1
                if entry.isAccepted { counts.accepted += 1 }
                if entry.header.isInjected { counts.injected += 1 }
                if !entry.isAccepted {
                    let reason = entry.reason.map { String(decoding: $0, as: UTF8.self) }
                    byReason[CaptureOutcomeCounts.ReasonKey(reason: reason, status: Int(entry.header.status)), default: 0] += 1
                }
                return true
            }
            counts.reasons = byReason.map { CaptureOutcomeCounts.ReasonCount(reason: $0.key.reason, status: $0.key.status, count: $0.value) }
                .sorted { ($1.count, $0.status, $0.reason ?? "") < ($0.count, $1.status, $1.reason ?? "") }
            return counts
        }
    }
}
