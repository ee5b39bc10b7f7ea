internal import SystemSeam

/// What one server connection holds in the process's memory, by owner: the figure the
/// per-connection bound (docs/ARCHITECTURE.md, "Bounded per connection") is tested on,
/// rather than resident size, which other allocations move.
///
/// Not counted: the kernel's socket buffers, OpenSSL's `SSL` object (OpenSSL counts only
/// through process-wide hooks; `scripts/idle-connection-memory.py` and the arithmetic in the
/// docs give its share), and what the handler keeps per connection.
struct ConnectionMemory: Sendable, Equatable {
    /// Bytes nghttp2 allocated for the HTTP/2 session, through `NGHTTP2MemoryCounter`.
    var nghttp2 = 0
    /// Capacities of the connection's own buffers: queued output, sniffed bytes, kept streams.
    var buffers = 0
    /// The connection's objects, as the allocator sized them.
    var objects = 0

    var total: Int { nghttp2 + buffers + objects }

    /// The allocator's size of a Swift object (Swift allocates objects with `malloc`); 0
    /// where the C library cannot tell (`SystemMemory.allocatedSize(of:)`), so that there the
    /// figures count buffer capacities only.
    static func size(of object: AnyObject) -> Int {
        SystemMemory.allocatedSize(of: Unmanaged.passUnretained(object).toOpaque()) ?? 0
    }

    /// The bytes an array has set aside.
    static func size<Element>(of array: [Element]) -> Int {
        array.capacity * MemoryLayout<Element>.stride
    }
}

extension ConnectionMemory {
    /// The most an idle HTTP/2 connection that has sent no request holds, as counted here:
    /// nghttp2's session (25.5 KiB, all of it allocated when the session is made: its
    /// 16 KiB outbound frame buffer, 4 KiB stream map, two 1 KiB HPACK rings and 2.9 KiB of
    /// session) and about 1.3 KiB of the transport's objects and buffers. OpenSSL's `SSL`
    /// (13.5 KiB after the handshake) and the kernel's buffers come on top.
    static let idleBound = 28 * 1024
    /// What the client's HPACK table adds once requests have filled it: nghttp2 spends about
    /// 190 bytes of memory on an entry whatever its size, so 4096 bytes of the smallest
    /// entries (33 bytes each by HPACK's count) take 24 KiB. The table is the connection's
    /// decoding state, kept for as long as it lives.
    static let headerTableBound = 25 * 1024
}
