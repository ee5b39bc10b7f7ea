/// Text being written as UTF-8 bytes: a growable buffer that checks its capacity once per
/// append instead of once per byte, for the lines a server writes on every request (the
/// mock's capture lines, log lines).
///
/// In a `[UInt8]`, each of a capture line's ~150 appends pays a uniqueness check, a
/// capacity check and a generic call, which cost more than the bytes themselves. This buffer
/// owns its memory alone (it is not copyable), so neither check is needed, and it frees the
/// memory exactly once, in `deinit`. Its members are inlinable: a call per appended byte
/// would cost what the buffer saves.
///
/// ```swift
/// var line = TextBuffer(capacity: 256)
/// line.append("status=")
/// line.append(UInt8(ascii: "2"))
/// let bytes = line.bytes  // Array("status=2".utf8)
/// ```
public struct TextBuffer: ~Copyable {
    @usableFromInline var start: UnsafeMutablePointer<UInt8>
    @usableFromInline var capacity: Int
    @usableFromInline var written = 0

    /// Bytes written so far.
    @inlinable public var count: Int { written }

    /// An empty buffer with room for `capacity` bytes before it grows.
    @inlinable
    public init(capacity: Int = 1024) {
        self.capacity = max(capacity, 16)
        start = .allocate(capacity: self.capacity)
    }

    @inlinable
    deinit {
        start.deallocate()
    }

    /// Makes room for `extra` more bytes, so that the unchecked writes that follow stay inside.
    @inlinable @inline(__always)
    public mutating func reserve(_ extra: Int) {
        if extra > capacity - written { grow(toHold: written + extra) }
    }

    @usableFromInline @inline(never)
    mutating func grow(toHold needed: Int) {
        let newCapacity = max(needed, capacity * 2)
        let newStart = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newStart.moveInitialize(from: start, count: written)
        start.deallocate()
        start = newStart
        capacity = newCapacity
    }

    /// Appends one byte.
    @inlinable @inline(__always)
    public mutating func append(_ byte: UInt8) {
        reserve(1)
        start[written] = byte
        written += 1
    }

    /// Appends bytes.
    @inlinable
    public mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (start + written).initialize(from: source, count: bytes.count)
        written += bytes.count
    }

    /// Appends bytes.
    @inlinable
    public mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append($0) }
    }

    /// Appends a string's UTF-8 as it is (no escaping): for keys and other ASCII constants.
    @inlinable @inline(__always)
    public mutating func append(_ text: String) {
        text.withBorrowedUTF8 { append($0) }
    }

    /// Appends a static string's UTF-8 as it is.
    @inlinable @inline(__always)
    public mutating func append(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Hands `body` the room for at most `maximum` more bytes; it returns how many it wrote.
    /// For writers that know an upper bound (escapes, digits) and fill it byte by byte.
    @inlinable @inline(__always)
    public mutating func write(atMost maximum: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        reserve(maximum)
        let added = body(start + written)
        written += min(max(added, 0), maximum)
    }

    /// Appends `value` in decimal, without building a `String` for it.
    @inlinable
    public mutating func appendDecimal(_ value: UInt64) {
        write(atMost: Self.maximumDecimalDigits) { Self.putDecimal(value, at: $0) }
    }

    /// Digits in the longest `UInt64`.
    public static let maximumDecimalDigits = 20

    /// Writes `value` in decimal at `out`, which has room for ``maximumDecimalDigits``;
    /// returns the number of digits.
    @inlinable
    public static func putDecimal(_ value: UInt64, at out: UnsafeMutablePointer<UInt8>) -> Int {
        var digitCount = 1
        var rest = value / 10
        while rest > 0 {
            digitCount += 1
            rest /= 10
        }
        rest = value
        for position in stride(from: digitCount - 1, through: 0, by: -1) {
            out[position] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        }
        return digitCount
    }

    /// The bytes written so far.
    @inlinable
    public func withUnsafeBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws(Never) -> Result) -> Result {
        body(UnsafeBufferPointer(start: start, count: written))
    }

    /// A copy of the bytes as an array.
    @inlinable
    public var bytes: [UInt8] {
        withUnsafeBytes { Array($0) }
    }
}
