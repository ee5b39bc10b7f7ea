import Synchronization

/// A bounded, thread-safe map from exact token bytes to their verification record.
///
/// The table is 4-way set-associative: a token's hash picks a set of four slots. A hit
/// marks its slot as recently used; inserting into a full set evicts a slot not used since
/// the last sweep (the CLOCK approximation of least-recently-used). So at most `capacity`
/// records are held, tokens in use stay, and every operation is O(1) with no allocation
/// on the lookup path.
///
/// Lookups compare the full token bytes after the hash matches, so a collision costs an
/// ECDSA verify, never a wrong answer. Only tokens that verified are ever inserted.
final class VerifiedTokenCache: Sendable {
    static let ways = 4

    private struct Table: ~Copyable {
        var hashes: [UInt64]
        var records: [VerifiedTokenRecord?]
        var recentlyUsed: [Bool]
        /// Per set, the slot where the next CLOCK sweep starts.
        var hands: [Int]
        var count = 0

        init(slots: Int) {
            hashes = [UInt64](repeating: 0, count: slots)
            records = [VerifiedTokenRecord?](repeating: nil, count: slots)
            recentlyUsed = [Bool](repeating: false, count: slots)
            hands = [Int](repeating: 0, count: slots / VerifiedTokenCache.ways)
        }
    }

    /// The most records held at once.
    let capacity: Int
    private let setMask: Int
    private let seed: UInt64
    private let table: Mutex<Table>

    /// Creates a cache holding at least `capacity` records (rounded up to a power of two).
    init(capacity: Int) {
        var sets = 1
        while sets * Self.ways < capacity { sets <<= 1 }
        self.capacity = sets * Self.ways
        setMask = sets - 1
        seed = UInt64.random(in: .min ... .max)
        table = Mutex(Table(slots: sets * Self.ways))
    }

    /// The hash under which `bytes` are stored; never 0, which marks an empty slot.
    @inline(__always)
    func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        TokenHash.hash(bytes, seed: seed) | 1
    }

    /// The record for exactly `bytes`, if cached.
    func record(for bytes: UnsafeBufferPointer<UInt8>, hash: UInt64) -> VerifiedTokenRecord? {
        let first = (Int(truncatingIfNeeded: hash >> 32) & setMask) * Self.ways
        return table.withLock { table -> VerifiedTokenRecord? in
            for slot in first..<(first + Self.ways) where table.hashes[slot] == hash {
                guard let record = table.records[slot], record.matches(bytes) else { continue }
                if !table.recentlyUsed[slot] { table.recentlyUsed[slot] = true }
                return record
            }
            return nil
        }
    }

    /// Stores a record, replacing any record for the same token.
    func insert(_ record: VerifiedTokenRecord, hash: UInt64) {
        let first = (Int(truncatingIfNeeded: hash >> 32) & setMask) * Self.ways
        table.withLock { table in
            var victim = -1
            for slot in first..<(first + Self.ways) {
                if table.hashes[slot] == hash, table.records[slot]?.tokenBytes == record.tokenBytes {
                    victim = slot
                    break
                }
                if victim < 0, table.records[slot] == nil { victim = slot }
            }
            if victim < 0 {
                // CLOCK sweep from the set's hand: clear "recently used" marks until an
                // unmarked slot turns up, then leave the hand just past it.
                let set = first / Self.ways
                var way = table.hands[set]
                while table.recentlyUsed[first + way] {
                    table.recentlyUsed[first + way] = false
                    way = (way + 1) % Self.ways
                }
                victim = first + way
                table.hands[set] = (way + 1) % Self.ways
            }
            if table.records[victim] == nil { table.count += 1 }
            table.hashes[victim] = hash
            table.records[victim] = record
            table.recentlyUsed[victim] = false
        }
    }

    /// The number of records held.
    var count: Int {
        table.withLock { $0.count }
    }
}
