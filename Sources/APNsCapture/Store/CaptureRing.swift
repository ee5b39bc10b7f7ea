/// A ring of at most `capacity` captured entries, oldest first, stored back to back in one
/// circular byte arena. Not thread-safe: ``CaptureStore`` keeps it under its lock.
///
/// Why an arena: with one heap object per entry, each push wrote its line into memory last
/// touched `capacity` pushes ago and freed an equally cold one, and entries of ~1.3 KB are
/// past glibc's per-thread cache, so every push also went through the allocator's slow path.
/// Here a push appends its entry where the last one ended (sequential writes the prefetcher
/// follows) and dropping the oldest only moves an index; nothing is allocated or freed per
/// push once the arena has reached its working size.
///
/// Entries never straddle the arena's end: one that does not fit before it starts at the
/// front, and the gap left behind is reclaimed when the ring passes it again. The arena
/// grows (never per push: by doubling, up to the size `capacity` entries like the ones seen
/// so far need, plus an eighth) only when the free space cannot hold the next entry while
/// the ring is below its entry count, or holds larger entries than before; the entry count
/// is what bounds the ring, as documented. ``removeAll()`` gives the arena back.
struct CaptureRing: ~Copyable {
    /// How many entries it keeps; 0 keeps none.
    let capacity: Int
    private var arena = Arena(size: 0)
    /// Where each entry lies in the arena, in a circular order beginning at `head`. The size
    /// is kept here so that dropping the oldest entry does not read its (cold) header.
    private var slots: ContiguousArray<Slot> = []
    private var head = 0
    /// Entries held.
    private(set) var count = 0
    /// Where the newest entry ends, which is where the next one goes if it fits.
    private var end = 0
    /// Bytes the held entries take (gaps excluded).
    private var liveBytes = 0

    /// The smallest arena it allocates.
    static let minimumArenaSize = 64 << 10

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// Bytes the arena holds, for tests of its growth.
    var arenaSize: Int { arena.size }

    /// The sequence number of the oldest entry, the one ``append(_:)`` drops when full.
    var oldestSequence: UInt64? {
        count == 0 ? nil : view(at: slots[head].offset).header.sequence
    }

    /// Stores a copy of `entry`. Drops the oldest entry first if the ring is full.
    ///
    /// - Returns: whether an entry was dropped to make room (always, for a capacity of 0).
    mutating func append(_ entry: CaptureEntryView) -> Bool {
        guard capacity > 0 else { return true }
        let dropped = count == capacity
        if dropped { removeOldest() }
        let header = entry.header
        let size = header.storedSize
        let offset = reserve(size)
        let base = arena.base + offset
        base.storeBytes(of: header, as: CaptureEntryHeader.self)
        (base + MemoryLayout<CaptureEntryHeader>.stride).copyMemory(from: entry.body, byteCount: header.keysCount + header.tailCount)
        let slot = Slot(offset: offset, size: size)
        if count == slots.count { linearizeSlots(adding: slot) } else { slots[index(count)] = slot }
        count += 1
        end = offset + size
        liveBytes += size
        return dropped
    }

    /// Calls `body` for each entry, oldest first, until it returns false. The views are
    /// valid only during the call.
    func forEach(_ body: (CaptureEntryView) -> Bool) {
        for position in 0..<count {
            guard body(view(at: slots[index(position)].offset)) else { return }
        }
    }

    /// Calls `body` for each entry, newest first, until it returns false. The views are
    /// valid only during the call.
    func forEachNewestFirst(_ body: (CaptureEntryView) -> Bool) {
        var position = count
        while position > 0 {
            position -= 1
            guard body(view(at: slots[index(position)].offset)) else { return }
        }
    }

    /// Empties the ring and hands back its arena, to be freed outside the lock.
    mutating func removeAll() -> Arena {
        var old = Arena(size: 0)
        swap(&old, &arena)
        slots = []
        head = 0
        count = 0
        end = 0
        liveBytes = 0
        return old
    }

    private func index(_ position: Int) -> Int {
        let index = head + position
        return index >= slots.count ? index - slots.count : index
    }

    private func view(at offset: Int) -> CaptureEntryView {
        let base = UnsafeRawPointer(arena.base + offset)
        return CaptureEntryView(header: base.load(as: CaptureEntryHeader.self),
                                body: base + MemoryLayout<CaptureEntryHeader>.stride)
    }

    private mutating func removeOldest() {
        liveBytes -= slots[head].size
        head = index(1)
        count -= 1
        if count == 0 {
            head = 0
            end = 0
        }
    }

    /// An offset with `size` free bytes after it, growing the arena if there is none.
    private mutating func reserve(_ size: Int) -> Int {
        if count == 0 {
            end = 0
            if arena.size >= size { return 0 }
        } else {
            let oldest = slots[head].offset
            if end > oldest {
                // Held: [oldest, end). Free: after `end`, and before `oldest`.
                if arena.size - end >= size { return end }
                if oldest >= size { return 0 }
            } else if oldest - end >= size {
                // Wrapped. Held: from `oldest` to the gap before the arena's end, and [0, end).
                return end
            }
        }
        grow(toAdd: size)
        return end
    }

    /// Moves the held entries, in order, to the front of a larger arena.
    private mutating func grow(toAdd size: Int) {
        let needed = liveBytes + size
        // What `capacity` entries of the average size so far take, with an eighth to spare
        // for the gap at the end and for entries a little larger than the average.
        let projected = needed / (count + 1) * capacity
        var newSize = max(needed + needed / 8, min(max(arena.size * 2, Self.minimumArenaSize), projected + projected / 8))
        newSize = (newSize + 4095) & ~4095
        let new = Arena(size: newSize)
        var offset = 0
        var newSlots = ContiguousArray<Slot>()
        newSlots.reserveCapacity(count + 1)
        for position in 0..<count {
            let slot = slots[index(position)]
            (new.base + offset).copyMemory(from: UnsafeRawPointer(arena.base + slot.offset), byteCount: slot.size)
            newSlots.append(Slot(offset: offset, size: slot.size))
            offset += slot.size
        }
        arena = new
        slots = newSlots
        head = 0
        end = offset
    }

    /// Appends `slot` to `slots` when it is full, first putting it in order from the
    /// oldest entry (it is full only while the ring is below `capacity`, or at it).
    private mutating func linearizeSlots(adding slot: Slot) {
        if head != 0 {
            slots = ContiguousArray(slots[head...] + slots[..<head])
            head = 0
        }
        slots.append(slot)
    }

    /// Where an entry lies in the arena.
    private struct Slot {
        var offset: Int
        /// Its ``CaptureEntryHeader/storedSize``.
        var size: Int
    }

    /// The ring's memory: freed when the value goes away, so the store can drop an old
    /// arena after unlocking.
    struct Arena: ~Copyable {
        let base: UnsafeMutableRawPointer
        let size: Int

        init(size: Int) {
            self.size = size
            base = .allocate(byteCount: Swift.max(size, 1), alignment: CaptureEntryHeader.alignment)
        }

        deinit {
            base.deallocate()
        }
    }
}
