internal import SystemSeam

/// The header strings of the last request on one connection, handed out again when the next
/// request carries the same bytes at the same position. Loop-confined, like its session.
///
/// A client sends nearly the same header block on every request of a connection (an APNs
/// provider repeats its `authorization`, `apns-topic`, `apns-push-type` and `user-agent`), and
/// HPACK hands the server the same bytes each time. Making a `String` of them means a UTF-8
/// check, and for values past 15 bytes an allocation, per header per request; comparing
/// with the previous request's bytes is a fraction of that.
struct HeaderStringCache {
    /// Regular headers remembered, from the start of a block (after the pseudo-headers).
    static let regularHeaderCount = 20
    /// Longer strings are not kept: a connection's cache stays small whatever its headers.
    static let maximumLength = 1024

    /// Slots for pseudo-header values, before those of regular headers.
    enum PseudoSlot: Int {
        case method, path, authority, scheme
    }

    /// The four pseudo-header values, then a name and a value per regular header; made at the
    /// first request, so an idle connection holds none.
    private var strings: [String] = []
    private static let slotCount = 4 + 2 * regularHeaderCount

    /// The bytes the cache holds: its slots, and about what the text of strings too long to be
    /// stored inline takes.
    var allocatedBytes: Int {
        var bytes = ConnectionMemory.size(of: strings)
        for string in strings where string.utf8.count > 15 { bytes += string.utf8.count + 32 }
        return bytes
    }

    /// Forgets every string, and the slots, until the next request.
    mutating func removeAll() {
        if !strings.isEmpty { strings = [] }
    }

    /// The value of the pseudo-header in `slot`.
    mutating func pseudoValue(_ bytes: UnsafeBufferPointer<UInt8>, slot: PseudoSlot) -> String {
        string(bytes, at: slot.rawValue)
    }

    /// The name of the regular header at `index` in its block.
    mutating func name(_ bytes: UnsafeBufferPointer<UInt8>, index: Int) -> String {
        string(bytes, at: 4 + 2 * index)
    }

    /// The value of the regular header at `index` in its block.
    mutating func value(_ bytes: UnsafeBufferPointer<UInt8>, index: Int) -> String {
        string(bytes, at: 5 + 2 * index)
    }

    private mutating func string(_ bytes: UnsafeBufferPointer<UInt8>, at slot: Int) -> String {
        if strings.isEmpty { strings = Array(repeating: "", count: Self.slotCount) }
        guard slot < strings.count, bytes.count <= Self.maximumLength else { return String(decoding: bytes, as: UTF8.self) }
        let cached = strings[slot]
        if cached.utf8.count == bytes.count {
            // Read in place: `withUTF8` on the array's element is a mutating access, which
            // checked the array's uniqueness for every header. A string whose bytes are not
            // contiguous (never the case here) is simply made again.
            let same = cached.utf8.withContiguousStorageIfAvailable { cachedBytes in
                guard let cachedBase = cachedBytes.baseAddress, let base = bytes.baseAddress else { return cachedBytes.count == 0 }
                return memcmp(cachedBase, base, bytes.count) == 0
            }
            if same == true { return cached }
        }
        let text = String(decoding: bytes, as: UTF8.self)
        strings[slot] = text
        return text
    }
}
