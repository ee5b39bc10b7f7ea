import APNsCore

extension CaptureStore {
    /// Replaces the answer of the newest push in the ring with this `apns-id` and arrival
    /// time by `outcome`: for a push whose answer changed after it was recorded (the mock
    /// answers 500 when its line could not be written), so that listings, lookups, counts
    /// and waits registered from now on show the answer the client got.
    ///
    /// Waits already handed the push keep what they were handed, and the file is not
    /// touched. Costs a scan from the newest entry and a decode and encode of the one found;
    /// the push path pays nothing for it but a check that no amendment is kept.
    ///
    /// - Returns: whether the ring still held the push.
    @discardableResult
    package func amendOutcome(apnsID: String, receivedAtMicroseconds: Int64, to outcome: PushOutcome) -> Bool {
        let id = Array(apnsID.utf8)
        let found = state.withLock { state -> CaptureEntry? in
            var found: CaptureEntry?
            state.forEachEntryNewestFirst { entry in
                guard entry.receivedAtMicroseconds == receivedAtMicroseconds, entry.apnsID.elementsEqual(id) else { return true }
                found = CaptureEntry(entry)
                return false
            }
            return found
        }
        guard let found, var record = try? found.record() else { return false }
        record.outcome = outcome
        let encoded = encoding(record)
        var header = encoded.header
        header.sequence = found.sequence
        let body = encoded.buffer.withUnsafeBytes { Array($0.prefix(encoded.keysCount + header.tailCount)) }
        return state.withLock { state in
            // Dropped or cleared since it was found: nothing shows it any more.
            guard let oldest = state.ring.oldestSequence, found.sequence >= oldest else { return false }
            state.amended[found.sequence] = CaptureAmendedEntry(header: header, body: body)
            state.sharedCopies[found.sequence] = nil
            return true
        }
    }
}

/// A ring entry as amended (``CaptureStore/amendOutcome(apnsID:receivedAtMicroseconds:to:)``):
/// its header and its keys and tail, outside the ring's arena, which cannot take an entry of
/// another size in the middle.
struct CaptureAmendedEntry {
    let header: CaptureEntryHeader
    /// The key bytes, followed by the tail.
    let body: [UInt8]

    /// Calls `visit` with the entry as a view, valid during the call.
    func withView(_ visit: (CaptureEntryView) -> Bool) -> Bool {
        body.withUnsafeBytes { bytes in
            // Never nil: a tail holds at least `}` and a newline.
            guard let base = bytes.baseAddress else { return true }
            return visit(CaptureEntryView(header: header, body: base))
        }
    }
}

extension CaptureStore.State {
    /// Calls `body` for each entry, oldest first, until it returns false; an amended entry
    /// in place of the ring's. The views are valid only during the call.
    func forEachEntry(_ body: (CaptureEntryView) -> Bool) {
        guard !amended.isEmpty else { return ring.forEach(body) }
        ring.forEach { entry in amended[entry.sequence]?.withView(body) ?? body(entry) }
    }

    /// ``forEachEntry(_:)``, newest first.
    func forEachEntryNewestFirst(_ body: (CaptureEntryView) -> Bool) {
        guard !amended.isEmpty else { return ring.forEachNewestFirst(body) }
        ring.forEachNewestFirst { entry in amended[entry.sequence]?.withView(body) ?? body(entry) }
    }
}
