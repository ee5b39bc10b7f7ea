/// The numbers of the delivery model's latest changes, for followers
/// (``DeliveryModel/changes(after:limit:)``): a circle of the last `capacity` numbers, each
/// naming the record and event it changed, so that numbering a push's change on the push
/// path is one store of two integers. A change whose record is about to be forgotten, and a
/// connectivity change (which has no record), are kept whole in `kept` instead.
struct DeliveryFeed {
    /// Where change number `sequence` is: `serial` and `event` in the log, or, with serial
    /// 0, in `kept`.
    private struct Slot {
        var serial: UInt64
        var event: Int
    }

    let capacity: Int
    /// The number of the latest change (0 before the first).
    private(set) var latest: UInt64 = 0
    /// Change `n` is at `(n - 1) % capacity`.
    private var slots: [Slot] = []
    private var kept: [UInt64: DeliveryChange] = [:]

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The oldest number still kept.
    private var oldest: UInt64 { latest - UInt64(slots.count) + 1 }

    /// Numbers event `event` of record `serial`.
    mutating func number(serial: UInt64, event: Int) {
        put(Slot(serial: serial, event: event))
    }

    /// Numbers a change kept whole (its `sequence` is set here).
    mutating func number(_ change: DeliveryChange) {
        put(Slot(serial: 0, event: 0))
        var change = change
        change.sequence = latest
        kept[latest] = change
    }

    private mutating func put(_ slot: Slot) {
        latest += 1
        if slots.count < capacity {
            slots.append(slot)
            return
        }
        let index = Int((latest - 1) % UInt64(capacity))
        if slots[index].serial == 0 { kept[latest - UInt64(capacity)] = nil }
        slots[index] = slot
    }

    /// Keeps whole the changes of record `serial` among the newest `recent`, before the log
    /// forgets the record.
    mutating func keep(serial: UInt64, among recent: Int, resolving resolve: (UInt64, Int) -> DeliveryChange?) {
        guard latest > 0 else { return }
        var sequence = latest
        for _ in 0..<min(recent, slots.count) {
            let index = Int((sequence - 1) % UInt64(capacity))
            if slots[index].serial == serial, var change = resolve(serial, slots[index].event) {
                change.sequence = sequence
                kept[sequence] = change
                slots[index].serial = 0
            }
            sequence -= 1
        }
    }

    /// The newest changes numbered after `after`, newest first, at most `limit`, resolved by
    /// `resolve` (nil for a record the log has forgotten), and how many numbers after it are kept.
    func changes(after: UInt64, limit: Int, resolving resolve: (UInt64, Int) -> DeliveryChange?) -> DeliveryChanges {
        var found = DeliveryChanges(changes: [], matched: 0, latestSequence: latest)
        guard latest > after, !slots.isEmpty else { return found }
        let first = max(after + 1, oldest)
        found.matched = Int(latest - first + 1)
        var sequence = latest
        while sequence >= first, found.changes.count < limit {
            let slot = slots[Int((sequence - 1) % UInt64(capacity))]
            if slot.serial == 0 {
                if let change = kept[sequence] { found.changes.append(change) }
            } else if var change = resolve(slot.serial, slot.event) {
                change.sequence = sequence
                found.changes.append(change)
            }
            sequence -= 1
        }
        return found
    }
}
