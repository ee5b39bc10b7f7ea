import StrictJSON

/// The capture encoder's JSON text primitives: values, strings, raw UTF-8 bytes, integers.
///
/// They escape as `JSONWriter` does, faster: runs of bytes that need no escape are copied
/// in one `append`, integers are formatted without building a `String`, and object members
/// are written in dictionary order instead of being sorted into a new array. Profiling
/// the push path showed these three costing half of `record`. They write into a
/// ``TextBuffer``, whose appends cost a fraction of `[UInt8]`'s.
enum CaptureJSONOutput {
    /// Appends `value` as compact JSON. Object member order is unspecified; numbers are
    /// written as `JSONWriter` writes them, so integers stay integers and doubles round-trip.
    static func write(_ value: JSONValue, into output: inout TextBuffer) {
        switch value {
        case .null, .bool, .double:
            var text: [UInt8] = []
            JSONWriter.write(value, into: &text)
            output.append(text)
        case .integer(let number):
            writeInteger(number, into: &output)
        case .string(let text):
            writeString(text, into: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            var first = true
            for element in elements {
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                write(element, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            var first = true
            for (key, member) in members {
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                writeString(key, into: &output)
                output.append(UInt8(ascii: ":"))
                write(member, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `text` as a JSON string literal.
    @inline(__always)
    static func writeString(_ text: String, into output: inout TextBuffer) {
        output.append(UInt8(ascii: "\""))
        text.withBorrowedUTF8 { writeEscaped($0, into: &output) }
        output.append(UInt8(ascii: "\""))
    }

    /// Appends UTF-8 `bytes` escaped as the inside of a JSON string.
    static func writeEscaped(_ bytes: [UInt8], into output: inout TextBuffer) {
        bytes.withUnsafeBufferPointer { writeEscaped($0, into: &output) }
    }

    /// Appends UTF-8 `bytes` escaped as the inside of a JSON string.
    ///
    /// Inlined up to the room it reserves, like the ``TextBuffer`` appends around it; the loop
    /// stays out of line, so that every string of a line shares one copy of it.
    @inline(__always)
    static func writeEscaped(_ bytes: UnsafeBufferPointer<UInt8>, into output: inout TextBuffer) {
        guard let input = bytes.baseAddress else { return }
        output.write(atMost: bytes.count * escapedBytesLimit + 8) { escapePlain(input, count: bytes.count, to: $0) }
    }

    @inline(never)
    private static func escapePlain(_ input: UnsafePointer<UInt8>, count: Int, to out: UnsafeMutablePointer<UInt8>) -> Int {
        escaping(input, count: count, to: out) { input, index, out in
            (consumed: 1, written: escape(input[index], at: out))
        }
    }

    /// The escaping loop: copies `count` bytes from `input` to `out`, and at each quote,
    /// backslash or control byte calls `special` with the input, the byte's index and where
    /// its escape goes; `special` returns how many input bytes it consumed and how many it
    /// wrote. Returns how many bytes it wrote in all.
    ///
    /// Eight bytes are examined per step and stored whole before looking at them: a word with
    /// nothing to escape costs one load and one store, and in a word with a quote only the bytes
    /// before it count as written. A payload has a quote every few bytes, and copying each short
    /// run with `memcpy` cost more than the rest of its line. `out` has room for the worst case
    /// (``escapedBytesLimit`` per input byte) plus one word of slack, so no store is checked
    /// against capacity.
    @inline(__always)
    private static func escaping(
        _ input: UnsafePointer<UInt8>, count: Int, to out: UnsafeMutablePointer<UInt8>,
        special: (UnsafePointer<UInt8>, Int, UnsafeMutablePointer<UInt8>) -> (consumed: Int, written: Int)
    ) -> Int {
        let raw = UnsafeRawPointer(input)
        let target = UnsafeMutableRawPointer(out)
        var written = 0
        var index = 0
        while true {
            if index + 8 <= count {
                let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                target.storeBytes(of: word, toByteOffset: written, as: UInt64.self)
                let special = JSONTextScan.specialBytes(in: UInt64(littleEndian: word), controlBelow: 0x20)
                if special == 0 {
                    index += 8
                    written += 8
                    continue
                }
                let plain = special.trailingZeroBitCount >> 3
                index += plain
                written += plain
            } else {
                // The last few bytes, one at a time.
                guard index < count else { break }
                let byte = input[index]
                if byte >= 0x20, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
                    out[written] = byte
                    written += 1
                    index += 1
                    continue
                }
            }
            let step = special(input, index, out + written)
            index += step.consumed
            written += step.written
        }
        return written
    }

    /// The most bytes an input byte escapes to (`\u00XX`); room for one word more is kept
    /// on top, for the word the loop stores before looking at it.
    private static let escapedBytesLimit = 6

    /// Writes the escape for a quote, a backslash or a control byte at `out`; returns its length.
    @inline(__always)
    private static func escape(_ byte: UInt8, at out: UnsafeMutablePointer<UInt8>) -> Int {
        out[0] = UInt8(ascii: "\\")
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"):
            out[1] = byte
            return 2
        case 0x0A:
            out[1] = UInt8(ascii: "n")
            return 2
        case 0x0D:
            out[1] = UInt8(ascii: "r")
            return 2
        case 0x09:
            out[1] = UInt8(ascii: "t")
            return 2
        default:
            out[1] = UInt8(ascii: "u")
            out[2] = UInt8(ascii: "0")
            out[3] = UInt8(ascii: "0")
            out[4] = hexDigit(byte >> 4)
            out[5] = hexDigit(byte & 0x0F)
            return 6
        }
    }

    /// The index of the first byte at or after `index` that is a quote, a backslash or
    /// below `controlBelow`; `count` if there is none.
    @inline(__always)
    private static func skipPlain(_ input: UnsafePointer<UInt8>, from index: Int, count: Int, controlBelow: UInt8) -> Int {
        var unused: UInt64 = 0
        return JSONTextScan.firstSpecial(input, from: index, count: count, controlBelow: controlBelow, skipped: &unused)
    }

    /// Appends JSON text that a strict parser accepted, without the whitespace between
    /// tokens, so that a payload spread over several lines stays on one capture line.
    static func writeCompacted(json: [UInt8], into output: inout TextBuffer) {
        json.withUnsafeBufferPointer { bytes in
            guard let input = bytes.baseAddress else { return }
            let count = bytes.count
            var index = 0
            var runStart = 0
            while true {
                // Whitespace is at most 0x20; quotes start strings, whose insides are kept.
                index = skipPlain(input, from: index, count: count, controlBelow: 0x21)
                guard index < count else { break }
                if input[index] == UInt8(ascii: "\"") {
                    index = endOfString(input, openingQuote: index, count: count)
                    continue
                }
                if index > runStart { output.append(UnsafeBufferPointer(start: input + runStart, count: index - runStart)) }
                index += 1
                runStart = index
            }
            if runStart < count { output.append(UnsafeBufferPointer(start: input + runStart, count: count - runStart)) }
        }
    }

    /// The index just past the quote that closes the string opened at `openingQuote`.
    private static func endOfString(_ input: UnsafePointer<UInt8>, openingQuote: Int, count: Int) -> Int {
        var index = openingQuote + 1
        while index < count {
            // No control byte below 0: this stops only at quotes and backslashes.
            index = skipPlain(input, from: index, count: count, controlBelow: 0)
            guard index < count else { break }
            if input[index] == UInt8(ascii: "\"") { return index + 1 }
            index += 2  // A backslash and the byte it escapes.
        }
        return count
    }

    /// Appends a signed integer in decimal.
    static func writeInteger(_ value: some BinaryInteger, into output: inout TextBuffer) {
        if value < 0 {
            output.append(UInt8(ascii: "-"))
            // `magnitude` of the most negative value still fits in UInt64.
            output.appendDecimal(UInt64(truncatingIfNeeded: Int64(truncatingIfNeeded: value).magnitude))
        } else {
            output.appendDecimal(UInt64(truncatingIfNeeded: value))
        }
    }

    @inline(__always)
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
