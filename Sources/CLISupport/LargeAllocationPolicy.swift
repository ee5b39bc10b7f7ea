internal import SystemSeam

/// How a long-running server's C allocator treats large buffers.
///
/// glibc gives a block above its mmap threshold a mapping of its own, which goes back to the
/// system when the block is freed. But each time such a block is freed, glibc raises the
/// threshold to that block's size (up to 32 MiB): after a server has freed one multi-megabyte
/// buffer (apns-mock's capture-file queue after the disk fell behind, say), buffers of that
/// size come from the heap instead, and the heap keeps what is freed there, so resident
/// memory climbs in steps over a long run. With the threshold fixed it stays flat;
/// `scripts/bench-mock.sh` prints apns-mock's peak after a million captured pushes.
///
/// ```swift
/// LargeAllocationPolicy.returnLargeBuffersToTheSystem()   // first thing in a server's main
/// ```
public enum LargeAllocationPolicy {
    /// Blocks of at least this many bytes get a mapping of their own, returned when freed.
    /// Far above anything allocated per request, so the request path never pays for a mapping.
    public static let mappingThreshold = 1 << 20

    /// Fixes glibc's mmap threshold at ``mappingThreshold``, which also ends its raising of
    /// the threshold (and of the heap's trim threshold) as blocks are freed. Process-wide:
    /// for an executable's `main`, not for a library.
    ///
    /// - Returns: whether the allocator took the setting; false where the C library is not glibc.
    @discardableResult
    public static func returnLargeBuffersToTheSystem() -> Bool {
        SystemMemory.setMappingThreshold(mappingThreshold)
    }
}
