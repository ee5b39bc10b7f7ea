/// A fixed-capacity ring of captured entries, oldest first. Not thread-safe: ``CaptureStore`` keeps
/// it under its lock.
struct CaptureRing {
    /// How many entries it keeps; 0 keeps none.
    let capacity: Int
    private var storage: ContiguousArray<CaptureEntry> = []
    /// Index of the oldest entry once the storage is full.
    private var head = 0

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    var count: Int { storage.count }

    /// Adds an entry and returns the one it pushed out, if any, so the caller can release it
    /// after unlocking.
    mutating func append(_ entry: consuming CaptureEntry) -> CaptureEntry? {
        guard capacity > 0 else { return entry }
        if storage.count < capacity {
            // Grow on demand: a ring that never fills should not cost `capacity` slots up front.
            storage.append(entry)
            return nil
        }
        var evicted = entry
        swap(&storage[head], &evicted)
        head += 1
        if head == capacity { head = 0 }
        return evicted
    }

    /// Calls `body` for each entry, oldest first, until it returns false.
    func forEach(_ body: (CaptureEntry) -> Bool) {
        for index in 0..<storage.count {
            var position = head + index
            if position >= storage.count { position -= storage.count }
            guard body(storage[position]) else { return }
        }
    }

    /// Calls `body` for each entry, newest first, until it returns false.
    func forEachNewestFirst(_ body: (CaptureEntry) -> Bool) {
        var index = storage.count
        while index > 0 {
            index -= 1
            var position = head + index
            if position >= storage.count { position -= storage.count }
            guard body(storage[position]) else { return }
        }
    }

    /// Empties the ring and hands back the old storage, to be released outside the lock.
    mutating func removeAll() -> ContiguousArray<CaptureEntry> {
        var old: ContiguousArray<CaptureEntry> = []
        swap(&old, &storage)
        head = 0
        return old
    }
}
