/// The C allocator's sizes and controls, where the C library offers them.
///
/// Fallback: on a C library without the call, sizes are nil ("unavailable") and the
/// controls do nothing and return false; callers treat that as "not measured" or "not
/// tuned", never as an error. glibc has all three; Musl has block sizes only; Darwin has
/// block sizes (`malloc_size`) only.
package enum SystemMemory {
    /// The bytes the allocator set aside for the block at `pointer` (at least what was
    /// asked for), or nil where the C library cannot tell.
    ///
    /// - Parameter pointer: a block from `malloc`, `calloc` or `realloc` (a Swift object is one).
    package static func allocatedSize(of pointer: UnsafeRawPointer) -> Int? {
        allocatedSize(of: pointer, usingFallback: false)
    }

    /// Gives the allocator's free heap memory back to the system (glibc's `malloc_trim`).
    ///
    /// - Returns: whether the trim ran; false where the C library has no such call, which
    ///   makes it a no-op.
    @discardableResult
    package static func releaseFreeMemory() -> Bool {
        releaseFreeMemory(usingFallback: false)
    }

    /// Makes every block of at least `bytes` a mapping of its own, returned to the system
    /// when freed, and stops the allocator from raising that threshold as blocks are freed
    /// (glibc's `mallopt(M_MMAP_THRESHOLD)`).
    ///
    /// - Returns: whether the allocator took the setting; false where the C library has no
    ///   such setting, which makes it a no-op.
    @discardableResult
    package static func setMappingThreshold(_ bytes: Int) -> Bool {
        setMappingThreshold(bytes, usingFallback: false)
    }

    // `usingFallback` lets the tests run the fallback path on a C library that has the call.

    static func allocatedSize(of pointer: UnsafeRawPointer, usingFallback: Bool) -> Int? {
        guard !usingFallback else { return nil }
        #if canImport(Glibc) || canImport(Musl)
        return malloc_usable_size(UnsafeMutableRawPointer(mutating: pointer))
        #elseif canImport(Darwin)
        return malloc_size(pointer)
        #else
        return nil
        #endif
    }

    static func releaseFreeMemory(usingFallback: Bool) -> Bool {
        guard !usingFallback else { return false }
        #if canImport(Glibc)
        _ = malloc_trim(0)
        return true
        #else
        return false
        #endif
    }

    static func setMappingThreshold(_ bytes: Int, usingFallback: Bool) -> Bool {
        guard !usingFallback else { return false }
        #if canImport(Glibc)
        return c_system_set_mmap_threshold(Int32(clamping: bytes)) == 1
        #else
        return false
        #endif
    }
}
