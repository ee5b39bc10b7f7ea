/// The bytes of capture lines being built: a growable buffer that checks its capacity once
/// per append instead of once per byte.
///
/// The mock encodes a ~1.3 KB line for every push. Built in `[UInt8]`, each of the line's
/// ~150 appends paid a uniqueness check, a capacity check and a generic call, which cost more
/// than the bytes themselves. This buffer owns its memory alone (it is not copyable), so
/// neither check is needed, and it frees the memory exactly once, in `deinit`.
struct CaptureLineBuffer: ~Copyable {
    private var start: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// Bytes written so far.
    private(set) var count = 0

    /// An empty buffer with room for `capacity` bytes before it grows.
    init(capacity: Int = 1024) {
        self.capacity = max(capacity, 16)
        start = .allocate(capacity: self.capacity)
    }

    deinit {
        start.deallocate()
    }

    /// Makes room for `extra` more bytes, so that the unchecked writes that follow stay inside.
    @inline(__always)
    mutating func reserve(_ extra: Int) {
        if extra > capacity - count { grow(toHold: count + extra) }
    }

    @inline(never)
    private mutating func grow(toHold needed: Int) {
        let newCapacity = max(needed, capacity * 2)
        let newStart = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newStart.moveInitialize(from: start, count: count)
        start.deallocate()
        start = newStart
        capacity = newCapacity
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        start[count] = byte
        count += 1
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (start + count).initialize(from: source, count: bytes.count)
        count += bytes.count
    }

    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append($0) }
    }

    /// Appends a string's UTF-8 as it is (no escaping): for keys and other ASCII constants.
    @inline(__always)
    mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }

    /// Hands `body` the room for at most `maximum` more bytes; it returns how many it wrote.
    /// For writers that know an upper bound (escapes, digits) and fill it byte by byte.
    @inline(__always)
    mutating func write(atMost maximum: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        reserve(maximum)
        let written = body(start + count)
        count += min(max(written, 0), maximum)
    }

    /// The bytes written so far.
    func withUnsafeBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws(Never) -> Result) -> Result {
        body(UnsafeBufferPointer(start: start, count: count))
    }

    /// A copy of the bytes as an array.
    var bytes: [UInt8] {
        withUnsafeBytes { Array($0) }
    }
}
