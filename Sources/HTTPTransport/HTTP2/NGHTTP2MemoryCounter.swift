internal import CNGHTTP2
internal import SystemSeam

/// Counts the bytes one nghttp2 session holds, through nghttp2's allocator hooks
/// (`nghttp2_session_server_new3`). Loop-confined, like its session, which must not outlive it.
///
/// Each block counts as `SystemMemory.allocatedSize(of:)` reports it, so that what is counted
/// is what the allocator set aside (nothing, where the C library cannot tell). Used only when
/// `HTTPServerConfiguration.countsConnectionMemory` is on: the hooks cost an indirection and a
/// size lookup per allocation.
final class NGHTTP2MemoryCounter {
    /// Bytes allocated by the session and not yet freed.
    private(set) var liveBytes = 0

    /// The hooks, pointing back at this counter; nghttp2 copies the structure.
    var allocator: nghttp2_mem {
        nghttp2_mem(mem_user_data: Unmanaged.passUnretained(self).toOpaque(),
                    malloc: countingMalloc, free: countingFree, calloc: countingCalloc, realloc: countingRealloc)
    }

    fileprivate func allocated(_ pointer: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
        if let pointer { liveBytes += SystemMemory.allocatedSize(of: pointer) ?? 0 }
        return pointer
    }

    fileprivate func freeing(_ pointer: UnsafeMutableRawPointer?) {
        if let pointer { liveBytes -= SystemMemory.allocatedSize(of: pointer) ?? 0 }
    }
}

private func counter(_ userData: UnsafeMutableRawPointer?) -> NGHTTP2MemoryCounter? {
    userData.map { Unmanaged<NGHTTP2MemoryCounter>.fromOpaque($0).takeUnretainedValue() }
}

private func countingMalloc(_ size: Int, _ userData: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    let pointer = malloc(size)
    return counter(userData)?.allocated(pointer) ?? pointer
}

private func countingFree(_ pointer: UnsafeMutableRawPointer?, _ userData: UnsafeMutableRawPointer?) {
    counter(userData)?.freeing(pointer)
    free(pointer)
}

private func countingCalloc(_ count: Int, _ size: Int, _ userData: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    let pointer = calloc(count, size)
    return counter(userData)?.allocated(pointer) ?? pointer
}

private func countingRealloc(_ pointer: UnsafeMutableRawPointer?, _ size: Int, _ userData: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    let owner = counter(userData)
    owner?.freeing(pointer)
    let moved = realloc(pointer, size)
    if moved == nil, size > 0 {
        // A failed realloc leaves the old block in place.
        _ = owner?.allocated(pointer)
        return nil
    }
    return owner?.allocated(moved) ?? moved
}
