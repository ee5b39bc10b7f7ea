import CLISupport
import SystemSeam
import Testing

/// The policy keeps large blocks returnable: one freed multi-megabyte block does not send
/// later large blocks to the heap, where freed memory stays resident.
///
/// Each test asks about its own block, not about the process's mapped bytes (`mallinfo2`):
/// tests running alongside map and free blocks of their own, and move that total between
/// a test's two readings.
@Suite struct LargeAllocationPolicyTests {
    /// Whether glibc gave `block` a mapping of its own: the IS_MMAPPED bit (0x2) of its chunk's
    /// size field, the word just before the block (glibc's malloc/malloc.c).
    static func hasOwnMapping(_ block: UnsafeMutableRawPointer) -> Bool {
        block.load(fromByteOffset: -MemoryLayout<Int>.size, as: Int.self) & 0x2 != 0
    }

    @Test func aLargeBlockStillGetsItsOwnMappingAfterALargerOneWasFreed() throws {
        #expect(LargeAllocationPolicy.returnLargeBuffersToTheSystem())
        // Under glibc's default, freeing this raises the threshold to 8 MiB...
        let larger = try #require(malloc(8 << 20))
        memset(larger, 1, 8 << 20)
        #expect(Self.hasOwnMapping(larger))
        free(larger)
        // ...and this 2 MiB block would then come from the heap.
        let block = try #require(malloc(2 << 20))
        defer { free(block) }
        #expect(Self.hasOwnMapping(block))
    }

    @Test func blocksBelowTheThresholdComeFromTheHeap() throws {
        #expect(LargeAllocationPolicy.returnLargeBuffersToTheSystem())
        let block = try #require(malloc(LargeAllocationPolicy.mappingThreshold / 2))
        defer { free(block) }
        #expect(!Self.hasOwnMapping(block))
    }
}
