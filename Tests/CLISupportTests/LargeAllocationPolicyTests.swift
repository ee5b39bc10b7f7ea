import CLISupport
import Glibc
import Testing

/// The policy keeps large blocks returnable: one freed multi-megabyte block no longer sends
/// later large blocks to the heap, where freed memory stays resident.
@Suite struct LargeAllocationPolicyTests {
    @Test func aLargeBlockStillGetsItsOwnMappingAfterALargerOneWasFreed() throws {
        #expect(LargeAllocationPolicy.returnLargeBuffersToTheSystem())
        // Under glibc's default, freeing this raises the threshold to 8 MiB...
        let larger = try #require(malloc(8 << 20))
        memset(larger, 1, 8 << 20)
        free(larger)
        // ...and this 2 MiB block would then come from the heap, its mapped bytes unchanged.
        let mappedBefore = LargeAllocationPolicy.mappedBytes
        let block = try #require(malloc(2 << 20))
        defer { free(block) }
        #expect(LargeAllocationPolicy.mappedBytes >= mappedBefore + (2 << 20))
    }

    @Test func blocksBelowTheThresholdComeFromTheHeap() throws {
        #expect(LargeAllocationPolicy.returnLargeBuffersToTheSystem())
        let mappedBefore = LargeAllocationPolicy.mappedBytes
        let block = try #require(malloc(LargeAllocationPolicy.mappingThreshold / 2))
        defer { free(block) }
        #expect(LargeAllocationPolicy.mappedBytes < mappedBefore + LargeAllocationPolicy.mappingThreshold / 2)
    }
}
