import StrictJSON

/// Compact JSON made of fixed text and string values, written straight into an exactly
/// sized array.
///
/// The gateway writes a canonical string (for the HMAC) and a payload per push. Appended
/// piece by piece to an `[UInt8]`, through `JSONWriter.writeString` (a copy of each string
/// to reach its bytes, a byte loop looking for escapes, a uniqueness and capacity check per
/// append), it would cost several times the bytes themselves. Here `write` runs twice: once to
/// measure and to check, eight bytes at a time, that no value needs an escape; once to copy.
/// A value that needs one makes ``compact(_:)`` return nil, and the caller writes through
/// `JSONWriter`, the one place that escapes.
///
/// ```swift
/// let bytes = HermesJSONOutput.compact { out in
///     out.append("{\"id\":")
///     out.appendQuoted(id)
///     out.append(UInt8(ascii: "}"))
/// }
/// ```
struct HermesJSONOutput {
    /// Where the copying pass writes; nil in the measuring pass.
    private let start: UnsafeMutablePointer<UInt8>?
    /// Room at `start`.
    private let capacity: Int
    /// Bytes measured or written so far.
    private(set) var count = 0
    /// Whether everything so far can be written without an escape (and fits, when copying).
    private(set) var isPlain = true

    private init(start: UnsafeMutablePointer<UInt8>?, capacity: Int) {
        self.start = start
        self.capacity = capacity
    }

    /// The bytes `write` produces, or nil when a value needs an escape (or a badge is negative).
    @inline(__always)
    static func compact(_ write: (inout HermesJSONOutput) -> Void) -> [UInt8]? {
        var measure = HermesJSONOutput(start: nil, capacity: 0)
        write(&measure)
        guard measure.isPlain else { return nil }
        var complete = false
        let bytes = [UInt8](unsafeUninitializedCapacity: measure.count) { buffer, initialized in
            var output = HermesJSONOutput(start: buffer.baseAddress, capacity: buffer.count)
            write(&output)
            // The same `write` over the same values measures what it copies; checked all the
            // same, so a mistake costs the fast path, never memory safety.
            complete = output.isPlain && output.count == measure.count
            initialized = complete ? output.count : 0
        }
        return complete ? bytes : nil
    }

    /// Appends JSON text as it is.
    @inline(__always)
    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { copy($0) }
    }

    /// Appends one byte of JSON text.
    @inline(__always)
    mutating func append(_ byte: UInt8) {
        if let start {
            guard count < capacity else {
                isPlain = false
                return
            }
            start[count] = byte
        }
        count += 1
    }

    /// Appends `text` as a JSON string (in quotes); text that would need an escape makes
    /// the whole output fall back to the caller's general writer.
    @inline(__always)
    mutating func appendQuoted(_ text: String) {
        append(UInt8(ascii: "\""))
        text.withBorrowedUTF8 { bytes in
            if start == nil, let base = bytes.baseAddress {
                var skipped: UInt64 = 0
                let end = JSONTextScan.firstSpecial(base, from: 0, count: bytes.count, controlBelow: 0x20, skipped: &skipped)
                if end != bytes.count { isPlain = false }
            }
            copy(bytes)
        }
        append(UInt8(ascii: "\""))
    }

    /// Appends a non-negative integer in decimal; a negative one falls back like an escape.
    mutating func appendDecimal(_ value: Int) {
        guard value >= 0 else {
            isPlain = false
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: TextBuffer.maximumDecimalDigits) { digits in
            guard let base = digits.baseAddress else {
                isPlain = false
                return
            }
            let length = TextBuffer.putDecimal(UInt64(value), at: base)
            copy(UnsafeBufferPointer(start: base, count: length))
        }
    }

    @inline(__always)
    private mutating func copy(_ bytes: UnsafeBufferPointer<UInt8>) {
        if let start {
            guard bytes.count <= capacity - count else {
                isPlain = false
                return
            }
            if let source = bytes.baseAddress { (start + count).initialize(from: source, count: bytes.count) }
        }
        count += bytes.count
    }
}
