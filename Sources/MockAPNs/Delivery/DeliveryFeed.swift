/// The numbers of the delivery model's latest changes, for followers
/// (``DeliveryModel/changes(after:limit:)``): a circle of the last `capacity` numbers, each
/// naming the record and event it changed, so that numbering a push's change on the push
/// path is one store of two integers. A change whose record is about to be forgotten, and a
/// connectivity change (which has no record), are kept whole in `kept` instead.
struct DeliveryFeed {
    /// Where a numbered change is: event `event` of record `serial` in the log; with serial
    /// 0, in `kept` (event 0) or nowhere yet (event -1).
    private struct Slot {
        var serial: UInt64
        var event: Int

        static let empty = Slot(serial: 0, event: -1)
        static let kept = Slot(serial: 0, event: 0)
    }

    let capacity: Int
    /// The number of the latest change (0 before the first).
    private(set) var latest: UInt64 = 0
    /// The circle, allocated whole at the first number; `head` is where the next one goes.
    private var slots: [Slot] = []
    private var head = 0
    private var kept: [UInt64: DeliveryChange] = [:]

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// How many numbers are kept: the latest ones.
    private var count: Int { Int(min(latest, UInt64(capacity))) }

    /// The slot of number `sequence`, one of the `count` latest.
    private func index(of sequence: UInt64) -> Int {
        let index = head - 1 - Int(latest - sequence)
        return index < 0 ? index + capacity : index
    }

    /// Numbers event `event` of record `serial`: on the push path, so a store and no division.
    mutating func number(serial: UInt64, event: Int) {
        put(Slot(serial: serial, event: event))
    }

    /// Numbers a change kept whole (its `sequence` is set here).
    mutating func number(_ change: DeliveryChange) {
        put(.kept)
        var change = change
        change.sequence = latest
        kept[latest] = change
    }

    private mutating func put(_ slot: Slot) {
        if slots.isEmpty { slots = Array(repeating: .empty, count: capacity) }
        latest += 1
        // The number this slot held leaves the circle, and `kept` with it.
        if slots[head].serial == 0, slots[head].event == 0 { kept[latest - UInt64(capacity)] = nil }
        slots[head] = slot
        head += 1
        if head == capacity { head = 0 }
    }

    /// Keeps whole the changes of record `serial` among the newest `recent`, before the log
    /// forgets the record.
    mutating func keep(serial: UInt64, among recent: Int, resolving resolve: (UInt64, Int) -> DeliveryChange?) {
        var sequence = latest
        for _ in 0..<min(recent, count) {
            let index = index(of: sequence)
            if slots[index].serial == serial, var change = resolve(serial, slots[index].event) {
                change.sequence = sequence
                kept[sequence] = change
                slots[index] = .kept
            }
            sequence -= 1
        }
    }

    /// The newest changes numbered after `after`, newest first, at most `limit`, resolved by
    /// `resolve` (nil for a record the log has forgotten), and how many numbers after it are kept.
    func changes(after: UInt64, limit: Int, resolving resolve: (UInt64, Int) -> DeliveryChange?) -> DeliveryChanges {
        var found = DeliveryChanges(changes: [], matched: 0, latestSequence: latest)
        guard latest > after, count > 0 else { return found }
        let first = max(after + 1, latest - UInt64(count) + 1)
        found.matched = Int(latest - first + 1)
        var sequence = latest
        while sequence >= first, found.changes.count < limit {
            let slot = slots[index(of: sequence)]
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
