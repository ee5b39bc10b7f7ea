import Testing
@testable import SystemSeam

/// The allocator calls answer on this C library, and their fallback (a C library without
/// them) reports "unavailable" and changes nothing.
@Suite struct SystemMemoryTests {
    @Test func aBlockSizeIsAtLeastWhatWasAskedFor() throws {
        let block = try #require(malloc(100))
        defer { free(block) }
        let size = try #require(SystemMemory.allocatedSize(of: block))
        #expect(size >= 100)
    }

    @Test func theFallbackReportsNoBlockSize() throws {
        let block = try #require(malloc(100))
        defer { free(block) }
        #expect(SystemMemory.allocatedSize(of: block, usingFallback: true) == nil)
    }

    @Test func theFallbackTrimsNothingAndSaysSo() {
        #expect(!SystemMemory.releaseFreeMemory(usingFallback: true))
    }

    @Test func theFallbackTakesNoMappingThreshold() {
        #expect(!SystemMemory.setMappingThreshold(1 << 20, usingFallback: true))
    }

    #if canImport(Glibc)
    @Test func glibcTrimsAndTakesTheMappingThreshold() {
        #expect(SystemMemory.releaseFreeMemory())
        #expect(SystemMemory.setMappingThreshold(1 << 20))
    }
    #endif
}
