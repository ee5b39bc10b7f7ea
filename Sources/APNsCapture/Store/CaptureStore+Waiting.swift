extension CaptureStore {
    /// Waits until `count` records matching `filter` have been captured since the last
    /// ``clear()`` (records already in the ring count), or until `timeout` passes.
    ///
    /// It suspends without polling: each ``record(_:)`` checks the pending waits. Any number
    /// of tasks may wait at once; they share one copy of each record they match, and each
    /// holds at most `count` of them. Cancelling the waiting task ends the wait at once.
    ///
    /// - Parameters:
    ///   - filter: which records count; all by default.
    ///   - count: how many are needed.
    ///   - timeout: how long to wait at most.
    /// - Returns: the matching records in sequence order and why the wait ended. When
    ///   satisfied there are at least `count` of them (more if more were already in the ring).
    public func wait(
        for filter: CaptureFilter = .all, count: Int = 1, timeout: Duration
    ) async -> CaptureWaitResult {
        let result = await waitForEntries(for: filter, count: count, timeout: timeout)
        return CaptureWaitResult(records: Self.records(of: result.entries), ending: result.ending)
    }

    /// ``wait(for:count:timeout:)`` with the ring's lines instead of records, for the control
    /// API, which sends the lines as they are.
    package func waitForEntries(for filter: CaptureFilter, count: Int, timeout: Duration) async -> EntryWait {
        let registration = register(filter: filter, count: count)
        let id: UInt64
        switch registration {
        case let .finished(matches, ending): return EntryWait(entries: matches, ending: ending)
        case let .waiting(waiting): id = waiting
        }
        return await withTaskGroup(of: EntryWait?.self) { group in
            group.addTask { await self.suspend(id) }
            group.addTask {
                do {
                    try await Task.sleep(for: timeout)
                } catch {
                    return nil  // Cancelled because the wait ended; nothing to do.
                }
                self.end(id, .timedOut)
                return nil
            }
            while let result = await group.next() {
                if let result {
                    group.cancelAll()
                    return result
                }
            }
            // Not reached: the suspending child always returns a result.
            return EntryWait(entries: [], ending: .cancelled)
        }
    }

    /// Pending waits; for tests that check none is left behind.
    public var pendingWaitCount: Int { state.withLock { $0.waiters.count } }

    /// Ring entries copied for the pending waits, each once however many waits hold it; for
    /// tests of that sharing.
    var sharedCopyCount: Int { state.withLock { $0.sharedCopies.count } }

    private enum Registration {
        case finished([CaptureEntry], CaptureWaitResult.Ending)
        case waiting(UInt64)
    }

    /// Checks the ring; if it does not already satisfy the wait, adds a waiter (with no
    /// continuation yet) so that no record recorded from now on can be missed.
    private func register(filter: CaptureFilter, count: Int) -> Registration {
        state.withLock { state in
            var matches: [CaptureEntry] = []
            // Entries another pending wait already copied are shared, not copied again.
            var copied: [CaptureEntry] = []
            do {
                let shared = state.sharedCopies
                state.forEachEntry { entry in
                    guard filter.matches(entry) else { return true }
                    if let copy = shared[entry.sequence] {
                        matches.append(copy)
                    } else {
                        let copy = CaptureEntry(entry)
                        matches.append(copy)
                        copied.append(copy)
                    }
                    return true
                }
            }
            if matches.count >= count { return .finished(matches, .satisfied) }
            if Task.isCancelled { return .finished(matches, .cancelled) }
            let id = state.nextWaiterID
            state.nextWaiterID += 1
            state.waiters[id] = Waiter(filter: filter, count: count, matches: matches, continuation: nil, ending: nil)
            for copy in copied { state.sharedCopies[copy.sequence] = copy }
            return .waiting(id)
        }
    }

    /// Suspends until the waiter ends; the one place its continuation is created.
    private func suspend(_ id: UInt64) async -> EntryWait {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<EntryWait, Never>) in
                let early = state.withLock { state -> Resumption? in
                    guard var waiter = state.waiters[id] else {
                        // Unreachable: a waiter is only removed by resuming its continuation.
                        return Resumption(continuation: continuation, matches: [], ending: .cancelled)
                    }
                    if let ending = waiter.ending {
                        state.removeWaiter(id)
                        return Resumption(continuation: continuation, matches: waiter.matches, ending: ending)
                    }
                    waiter.continuation = continuation
                    state.waiters[id] = waiter
                    return nil
                }
                early?.resume()
            }
        } onCancel: {
            end(id, .cancelled)
        }
    }

    /// Ends a wait from outside the lock, resuming it if it is suspended.
    private func end(_ id: UInt64, _ ending: CaptureWaitResult.Ending) {
        state.withLock { $0.end(id, ending) }?.resume()
    }
}

/// How a wait ended, with the matching lines (not yet records).
package struct EntryWait: Sendable {
    package var entries: [CaptureEntry]
    package var ending: CaptureWaitResult.Ending
}
