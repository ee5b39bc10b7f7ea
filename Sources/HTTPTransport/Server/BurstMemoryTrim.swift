import Synchronization
internal import SystemSeam

/// Gives the allocator's free memory back to the system once a burst of connections has
/// mostly closed, so that a server's resident size follows its connections down again.
///
/// glibc keeps freed memory in its heaps for reuse; after thousands of connections close,
/// it would keep hundreds of megabytes no connection uses. `malloc_trim` returns it. It runs
/// at most once per halving of the connection count, and only after at least
/// ``minimumBurst`` connections were open, so steady traffic never pays for it. Where the C
/// library has no such call (`SystemMemory.releaseFreeMemory()`), nothing is trimmed or counted.
final class BurstMemoryTrim: Sendable {
    /// Open connections a burst must have reached before its end is trimmed.
    static let minimumBurst = 256
    /// The most connections open since the last trim.
    private let mark = Atomic<Int>(0)
    /// Gives the free memory back; false where the C library cannot.
    private let release: @Sendable () -> Bool

    init(release: @escaping @Sendable () -> Bool = { SystemMemory.releaseFreeMemory() }) {
        self.release = release
    }

    /// Called as each connection ends, with how many stay open.
    func connectionEnded(leaving open: Int, counters: TransportCounters) {
        var peak = mark.load(ordering: .relaxed)
        if open + 1 > peak {
            mark.store(open + 1, ordering: .relaxed)
            peak = open + 1
        }
        guard peak >= Self.minimumBurst, open <= peak / 2 else { return }
        // One loop trims; another that ends a connection at the same moment skips.
        guard mark.compareExchange(expected: peak, desired: open, ordering: .relaxed).exchanged else { return }
        guard release() else { return }
        counters.memoryTrims.wrappingAdd(1, ordering: .relaxed)
    }
}
