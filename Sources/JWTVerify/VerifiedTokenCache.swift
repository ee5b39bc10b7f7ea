import Synchronization

/// A bounded, thread-safe map from exact token bytes to their verification record.
///
/// Entries live in two generations. New entries go into the current one; when it holds
/// half the capacity, it becomes the previous generation and the old previous one is
/// dropped. A hit in the previous generation moves the entry back into the current one,
/// so tokens in use survive and at most `capacity` entries are held. This approximates
/// LRU with O(1) work and no per-hit bookkeeping.
///
/// Lookups hash the token bytes with a seeded 64-bit hash and then compare the bytes in
/// full, so a collision costs a verify, never a wrong answer.
final class VerifiedTokenCache: Sendable {
    private struct Generations: ~Copyable {
        var current: [UInt64: VerifiedTokenRecord] = [:]
        var previous: [UInt64: VerifiedTokenRecord] = [:]
    }

    /// The most records held at once.
    let capacity: Int
    private let generationCapacity: Int
    private let seed: UInt64
    private let generations = Mutex(Generations())

    init(capacity: Int) {
        self.capacity = max(2, capacity)
        generationCapacity = self.capacity / 2
        seed = UInt64.random(in: .min ... .max)
    }

    /// The hash under which `bytes` are stored.
    @inline(__always)
    func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        TokenHash.hash(bytes, seed: seed)
    }

    /// The record for exactly `bytes`, if cached.
    func record(for bytes: UnsafeBufferPointer<UInt8>, hash: UInt64) -> VerifiedTokenRecord? {
        generations.withLock { generations -> VerifiedTokenRecord? in
            if let record = generations.current[hash] {
                return record.matches(bytes) ? record : nil
            }
            guard let record = generations.previous[hash], record.matches(bytes) else { return nil }
            generations.previous[hash] = nil
            insert(record, hash: hash, into: &generations)
            return record
        }
    }

    /// Stores a record, replacing any record with the same hash.
    func insert(_ record: VerifiedTokenRecord, hash: UInt64) {
        generations.withLock { generations in
            insert(record, hash: hash, into: &generations)
        }
    }

    private func insert(_ record: VerifiedTokenRecord, hash: UInt64, into generations: inout Generations) {
        if generations.current[hash] == nil, generations.current.count >= generationCapacity {
            generations.previous = generations.current
            generations.current = [:]
            generations.current.reserveCapacity(generationCapacity)
        }
        generations.current[hash] = record
    }

    /// The number of records held.
    var count: Int {
        generations.withLock { $0.current.count + $0.previous.count }
    }
}

/// A fast seeded 64-bit hash of token bytes (multiply-xorshift over 8-byte words).
enum TokenHash {
    @inline(__always)
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>, seed: UInt64) -> UInt64 {
        let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
        var state = seed ^ (UInt64(bytes.count) &* multiplier)
        guard let base = bytes.baseAddress else { return mix(state) }
        let raw = UnsafeRawPointer(base)
        var index = 0
        while index + 8 <= bytes.count {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            state = (state ^ word) &* multiplier
            state ^= state >> 29
            index += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while index < bytes.count {
            tail |= UInt64(base[index]) << shift
            shift += 8
            index += 1
        }
        state = (state ^ tail) &* multiplier
        return mix(state)
    }

    /// The MurmurHash3 finaliser, so every input bit affects every output bit.
    @inline(__always)
    private static func mix(_ value: UInt64) -> UInt64 {
        var x = value
        x ^= x >> 33
        x = x &* 0xFF51_AFD7_ED55_8CCD
        x ^= x >> 33
        x = x &* 0xC4CE_B9FE_1A85_EC53
        x ^= x >> 33
        return x
    }
}
