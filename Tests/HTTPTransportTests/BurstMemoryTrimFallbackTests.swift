import Testing
@testable import HTTPTransport

/// Where the C library cannot give memory back (`SystemMemory.releaseFreeMemory()` returns
/// false), the end of a burst trims nothing and counts nothing; where it can, it counts once.
@Suite struct BurstMemoryTrimFallbackTests {
    /// Opens `BurstMemoryTrim.minimumBurst` connections and closes them all.
    static func trims(releasing: Bool) -> Int {
        let counters = TransportCounters()
        let trim = BurstMemoryTrim(release: { releasing })
        let burst = BurstMemoryTrim.minimumBurst
        for open in stride(from: burst - 1, through: 0, by: -1) {
            trim.connectionEnded(leaving: open, counters: counters)
        }
        return counters.memoryTrims.load(ordering: .relaxed)
    }

    @Test func anAllocatorThatTrimsIsCountedOnce() {
        // Trimmed when half the burst has closed; the mark is then below a burst.
        #expect(Self.trims(releasing: true) == 1)
    }

    @Test func anAllocatorWithoutTrimmingCountsNothing() {
        #expect(Self.trims(releasing: false) == 0)
    }
}
