import Foundation

extension DeliveryModel {
    /// Which push a wait is about.
    public enum Lookup: Sendable, Hashable {
        case apnsID(String)
        case uniqueID(String)

        func matches(_ record: DeliveryRecord) -> Bool {
            switch self {
            case .apnsID(let id): record.apnsID == id
            case .uniqueID(let id): record.uniqueID == id
            }
        }
    }

    /// How a wait ended, and the record as it was then (nil when no such push was seen).
    public struct WaitResult: Sendable, Hashable {
        public enum Ending: String, Sendable, Hashable {
            case satisfied
            case timedOut = "timed_out"
            case cancelled
        }

        public var ending: Ending
        public var record: DeliveryRecord?

        public var isSatisfied: Bool { ending == .satisfied }
    }

    /// Waits until the push reaches `state` (now or earlier: a delivered push later replaced
    /// on screen was delivered), or `timeout` passes. It suspends without polling: each
    /// change checks the pending waits, and the mock's control loop plays due changes.
    ///
    /// - Parameters:
    ///   - lookup: the push, by `apns-id` or `apns-unique-id`; it need not have arrived yet.
    ///   - state: the state waited for.
    ///   - timeout: how long to wait at most, in real time.
    public func wait(for lookup: Lookup, toReach state: DeliveryState, timeout: Duration) async -> WaitResult {
        await wait(until: .reaches(lookup, state), timeout: timeout)
    }

    /// Waits until the model has made a change numbered after `sequence` (now or earlier),
    /// or `timeout` passes: the live stream's wait (``changes(after:limit:)``).
    public func waitForChange(after sequence: UInt64, timeout: Duration) async -> WaitResult.Ending {
        await wait(until: .changes(after: sequence), timeout: timeout).ending
    }

    private func wait(until condition: Condition, timeout: Duration) async -> WaitResult {
        advance()
        let id: UInt64
        switch register(condition) {
        case .finished(let result): return result
        case .waiting(let waiting): id = waiting
        }
        return await withTaskGroup(of: WaitResult?.self) { group in
            group.addTask { await self.suspend(id) }
            group.addTask {
                do {
                    try await Task.sleep(for: timeout)
                } catch {
                    return nil
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
            return WaitResult(ending: .cancelled, record: nil)
        }
    }

    /// Pending waits, for tests that check none is left behind.
    public var pendingWaitCount: Int { withState { $0.waiters.count } }

    /// What a wait waits for.
    enum Condition {
        /// The push reaching the state.
        case reaches(Lookup, DeliveryState)
        /// Any change numbered after this number.
        case changes(after: UInt64)
    }

    struct Waiter {
        let condition: Condition
        var continuation: CheckedContinuation<WaitResult, Never>?
        var ending: WaitResult?
    }

    struct Resumption {
        let continuation: CheckedContinuation<WaitResult, Never>
        let result: WaitResult

        func resume() { continuation.resume(returning: result) }
    }

    private enum Registration {
        case finished(WaitResult)
        case waiting(UInt64)
    }

    private func register(_ condition: Condition) -> Registration {
        withState { locked in
            let record = locked.record(of: condition)
            switch condition {
            case .reaches(_, let state):
                if let record, record.events.contains(where: { $0.state == state }) {
                    return .finished(WaitResult(ending: .satisfied, record: record))
                }
            case .changes(let after):
                if locked.book.feed.latest > after { return .finished(WaitResult(ending: .satisfied, record: nil)) }
            }
            if Task.isCancelled { return .finished(WaitResult(ending: .cancelled, record: record)) }
            let id = locked.nextWaiterID
            locked.nextWaiterID += 1
            locked.waiters[id] = Waiter(condition: condition)
            return .waiting(id)
        }
    }

    private func suspend(_ id: UInt64) async -> WaitResult {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<WaitResult, Never>) in
                let early = withState { locked -> WaitResult? in
                    guard var waiter = locked.waiters[id] else { return WaitResult(ending: .cancelled, record: nil) }
                    if let ending = waiter.ending {
                        locked.waiters[id] = nil
                        return ending
                    }
                    waiter.continuation = continuation
                    locked.waiters[id] = waiter
                    return nil
                }
                if let early { continuation.resume(returning: early) }
            }
        } onCancel: {
            self.end(id, .cancelled)
        }
    }

    /// Ends a wait that has not ended, with the record as it is now.
    private func end(_ id: UInt64, _ ending: WaitResult.Ending) {
        let resumption = withState { locked -> Resumption? in
            guard let waiter = locked.waiters[id], waiter.ending == nil else { return nil }
            return locked.end(id, WaitResult(ending: ending, record: locked.record(of: waiter.condition)))
        }
        resumption?.resume()
    }
}

extension DeliveryModel.State {
    /// The record a wait is about now (none for a wait for any change).
    func record(of condition: DeliveryModel.Condition) -> DeliveryRecord? {
        switch condition {
        case .reaches(.apnsID(let id), _): book.record(apnsID: id)
        case .reaches(.uniqueID(let id), _): book.record(uniqueID: id)
        case .changes: nil
        }
    }

    /// Ends the waits the changes just made satisfy (`changes`, the pushes' changes, and
    /// every change the feed numbered); returns those to resume once unlocked.
    mutating func offer(_ changes: [(serial: UInt64, event: Int)]) -> [DeliveryModel.Resumption] {
        var ready: [DeliveryModel.Resumption] = []
        for (id, waiter) in waiters where waiter.ending == nil {
            guard case .changes(let after) = waiter.condition, book.feed.latest > after else { continue }
            if let resumption = end(id, DeliveryModel.WaitResult(ending: .satisfied, record: nil)) { ready.append(resumption) }
        }
        for change in changes {
            guard let record = book.record(serial: change.serial), change.event < record.events.count else { continue }
            let state = record.events[change.event].state
            for (id, waiter) in waiters where waiter.ending == nil {
                guard case .reaches(let lookup, state) = waiter.condition, lookup.matches(record) else { continue }
                if let resumption = end(id, DeliveryModel.WaitResult(ending: .satisfied, record: record)) { ready.append(resumption) }
            }
        }
        return ready
    }

    /// Ends a wait: returns it for resuming if its continuation is attached, else keeps the
    /// ending until it attaches.
    mutating func end(_ id: UInt64, _ result: DeliveryModel.WaitResult) -> DeliveryModel.Resumption? {
        guard var waiter = waiters[id] else { return nil }
        guard let continuation = waiter.continuation else {
            waiter.ending = result
            waiters[id] = waiter
            return nil
        }
        waiters[id] = nil
        return DeliveryModel.Resumption(continuation: continuation, result: result)
    }
}
