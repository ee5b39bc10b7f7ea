/// Lets nghttp2 read a header block that carries a value longer than its HPACK decoder takes,
/// so that the request is answered 431 instead of the connection ending.
///
/// nghttp2 refuses any HPACK string over 64 KiB (`NGHTTP2_HD_MAX_NV`) with COMPRESSION_ERROR,
/// a connection error; yet the block must still be decoded, or the dynamic table, and with it
/// every later request of the connection, would go wrong. This filter stands in front of
/// nghttp2 and follows the frames. In a header block that could hold such a value (one that
/// spans frames, or a frame over 64 KiB; the usual one-frame block is never looked into) it
/// follows the HPACK representations, and rewrites a value over the limit in place, in as
/// many bytes as it had:
///
/// - its length becomes ``replacementLength``, its bytes `x`: an entry that size is still
///   larger than any dynamic table the filter works for (``init(tableSizeLimit:)``), so
///   incremental indexing empties the table exactly as the original value did;
/// - the rest of its bytes become literal fields named `x`, not indexed, which leave the table
///   alone.
///
/// The session is told the stream (``Rewrite``), and answers it 431 whatever it decodes (a
/// client session fails that request instead, `HTTPClientError.responseHeaderTooLarge`). A
/// name over 64 KiB is left alone (a name cannot be followed by filler fields before its
/// value), so nghttp2 still ends the connection for one. Loop-confined, one per session.
struct OversizedValueFilter {
    /// The longest HPACK string nghttp2 decodes (`NGHTTP2_HD_MAX_NV`).
    static let decoderStringLimit = 65_536
    /// The length an oversized value is given.
    static let replacementLength = 49_152
    /// Bytes the filter holds back at most, while a value's length arrives: beyond this the
    /// block is passed on unfollowed, for nghttp2 to judge.
    static let maxHeldBytes = 1_024

    /// A value rewritten: the stream it belongs to is to be refused, whatever nghttp2 reports.
    struct Rewrite { let streamID: Int32 }

    private var state = State()
    /// Whether values may be rewritten: the replacement must be too large for the table.
    private let rewrites: Bool
    /// Bytes held back from nghttp2 (a value's length that had not arrived whole) and the
    /// state from just before them.
    private var held: [UInt8] = []
    private var heldState: State?

    /// - Parameters:
    ///   - tableSizeLimit: the largest HPACK dynamic table the peer may use (the
    ///     SETTINGS_HEADER_TABLE_SIZE announced, 4,096 when none was).
    ///   - prefaceLength: bytes before the first frame: the client's connection preface (24)
    ///     on a server; none on a client, which reads the server's SETTINGS first.
    init(tableSizeLimit: Int, prefaceLength: Int = 24) {
        rewrites = tableSizeLimit < Self.replacementLength + 32
        state.prefaceLeft = prefaceLength
    }

    /// Hands `input` on to `deliver` (in one call, after any bytes held back from the last
    /// call), rewritten where needed; bytes that end in the middle of a value's length are held
    /// back until it is known. Returns false as soon as `deliver` does.
    mutating func feed(_ input: UnsafeRawBufferPointer, rewritten: (Rewrite) -> Void,
                       deliver: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        var work: [UInt8]
        var resumeAt = 0
        if held.isEmpty {
            switch scan(input, from: 0, writable: nil, rewritten: rewritten) {
            case let .completed(holdFrom):
                return handOn(input, holdFrom: holdFrom, deliver: deliver)
            case let .needsWrite(at):
                // Nothing was changed yet; the state is as it was at `at`.
                work = Array(input)
                resumeAt = at
            }
        } else {
            if let heldState { state = heldState }
            work = held
            work.append(contentsOf: input)
            held = []
            heldState = nil
        }
        return work.withUnsafeMutableBytes { buffer in
            guard case let .completed(holdFrom) = scan(UnsafeRawBufferPointer(buffer), from: resumeAt, writable: buffer,
                                                        rewritten: rewritten) else { return false }
            return handOn(UnsafeRawBufferPointer(buffer), holdFrom: holdFrom, deliver: deliver)
        }
    }

    private mutating func handOn(_ bytes: UnsafeRawBufferPointer, holdFrom: Int?,
                                 deliver: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        guard let holdFrom, let start = lengthStart else { return deliver(bytes) }
        held = Array(bytes[holdFrom...])
        heldState = start.state
        lengthStart = nil
        return holdFrom == 0 || deliver(UnsafeRawBufferPointer(rebasing: bytes[..<holdFrom]))
    }

    // MARK: Frames

    private enum ScanEnd {
        /// Every byte was followed; those from `holdFrom` on are to be held back.
        case completed(holdFrom: Int?)
        /// A byte at or after `at` must change: scan again from `at` with a writable copy.
        case needsWrite(at: Int)
    }

    private enum Part { case frameHeader, opaque, padLength, prefix, fragment }

    /// Where a value's length began, and the state just before it: where a rescan with a
    /// writable copy starts, and what is restored when the length is held back.
    private var lengthStart: (index: Int, state: State)?
    /// The bytes of the length being read, which a rewrite replaces.
    private var lengthPositions: [Int] = []

    private struct State {
        var prefaceLeft = 24
        var part = Part.frameHeader
        var headerFill = 0
        var length = 0
        var type: UInt8 = 0
        var flags: UInt8 = 0
        var streamID: UInt32 = 0
        /// Payload bytes of the current frame still to come.
        var payloadLeft = 0
        var prefixLeft = 0
        var fragmentLeft = 0
        /// The current header block is being followed, field by field.
        var following = false
        var blockStreamID: Int32 = 0
        var field = FieldStep.start
        var writer = ReplacementWriter()
    }

    private static let headersType: UInt8 = 0x1
    private static let continuationType: UInt8 = 0x9
    private static let endHeaders: UInt8 = 0x4
    private static let padded: UInt8 = 0x8
    private static let priority: UInt8 = 0x20

    private mutating func scan(_ bytes: UnsafeRawBufferPointer, from start: Int, writable: UnsafeMutableRawBufferPointer?,
                               rewritten: (Rewrite) -> Void) -> ScanEnd {
        var i = start
        let count = bytes.count
        while i < count {
            if state.prefaceLeft > 0 {
                let taken = min(state.prefaceLeft, count - i)
                state.prefaceLeft -= taken
                i += taken
                continue
            }
            if state.part == .frameHeader && state.headerFill == 0 {
                i = skipWholeFrames(bytes, from: i)
                if i == count { break }
            }
            switch state.part {
            case .frameHeader:
                if state.headerFill == 0 && count - i >= 9 {
                    state.length = Int(bytes[i]) << 16 | Int(bytes[i + 1]) << 8 | Int(bytes[i + 2])
                    state.type = bytes[i + 3]
                    state.flags = bytes[i + 4]
                    state.streamID = UInt32(bytes[i + 5]) << 24 | UInt32(bytes[i + 6]) << 16 | UInt32(bytes[i + 7]) << 8 | UInt32(bytes[i + 8])
                    i += 9
                    beginFrame()
                } else {
                    takeHeaderByte(bytes[i])
                    i += 1
                }
            case .opaque:
                let taken = min(state.payloadLeft, count - i)
                state.payloadLeft -= taken
                i += taken
                if state.payloadLeft == 0 { endFrame() }
            case .padLength:
                let padding = Int(bytes[i])
                i += 1
                state.payloadLeft -= 1
                state.fragmentLeft = state.payloadLeft - state.prefixLeft - padding
                if state.fragmentLeft < 0 {
                    stopFollowing()
                    state.part = .opaque
                } else {
                    state.part = state.prefixLeft > 0 ? .prefix : .fragment
                }
                if state.payloadLeft == 0 { endFrame() }
            case .prefix:
                let taken = min(state.prefixLeft, count - i)
                state.prefixLeft -= taken
                state.payloadLeft -= taken
                i += taken
                if state.prefixLeft == 0 { state.part = .fragment }
                if state.payloadLeft == 0 { endFrame() }
            case .fragment:
                guard state.following else {
                    state.part = .opaque
                    continue
                }
                let end = i + min(state.fragmentLeft, count - i)
                switch followFields(bytes, from: i, to: end, writable: writable, rewritten: rewritten) {
                case .reachedEnd:
                    state.fragmentLeft -= end - i
                    state.payloadLeft -= end - i
                    i = end
                case let .writesAt(index):
                    state.fragmentLeft -= index - i
                    state.payloadLeft -= index - i
                    return .needsWrite(at: index)
                case let .rescanFrom(index):
                    // The state is back where the value's length began.
                    return .needsWrite(at: index)
                }
                if state.fragmentLeft == 0 || !state.following { state.part = .opaque }
                if state.payloadLeft == 0 { endFrame() }
            }
        }
        return .completed(holdFrom: holdPoint(count))
    }

    /// Passes over frames that lie whole in `bytes` and need no following (every frame of
    /// the usual request): the first one that does, or does not lie whole, is left to `scan`.
    private mutating func skipWholeFrames(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        var i = start
        while bytes.count - i >= 9 {
            let length = Int(bytes[i]) << 16 | Int(bytes[i + 1]) << 8 | Int(bytes[i + 2])
            let type = bytes[i + 3]
            guard bytes.count - i - 9 >= length else { break }
            if type == Self.headersType {
                let flags = bytes[i + 4]
                guard !rewrites || (flags & Self.endHeaders != 0 && length <= Self.decoderStringLimit) else { break }
                state.following = false
            } else if type == Self.continuationType && state.following {
                break
            }
            i += 9 + length
        }
        return i
    }

    private mutating func takeHeaderByte(_ byte: UInt8) {
        switch state.headerFill {
        case 0: state.length = Int(byte)
        case 1, 2: state.length = state.length << 8 | Int(byte)
        case 3: state.type = byte
        case 4: state.flags = byte
        case 5: state.streamID = UInt32(byte)
        default: state.streamID = state.streamID << 8 | UInt32(byte)
        }
        state.headerFill += 1
        if state.headerFill == 9 {
            state.headerFill = 0
            beginFrame()
        }
    }

    /// Decides how the payload of the frame whose header was just read is followed.
    private mutating func beginFrame() {
        state.payloadLeft = state.length
        state.part = .opaque
        switch state.type {
        case Self.headersType:
            // Only a block that can hold a string nghttp2 refuses is followed: one spanning
            // frames, or one frame larger than such a string.
            state.following = rewrites && (state.flags & Self.endHeaders == 0 || state.length > Self.decoderStringLimit)
            state.field = .start
            state.blockStreamID = Int32(bitPattern: state.streamID & 0x7fff_ffff)
            if state.following {
                state.prefixLeft = state.flags & Self.priority != 0 ? 5 : 0
                if state.flags & Self.padded != 0 {
                    state.part = .padLength
                } else {
                    state.fragmentLeft = state.length - state.prefixLeft
                    if state.fragmentLeft < 0 { stopFollowing() } else { state.part = state.prefixLeft > 0 ? .prefix : .fragment }
                }
            }
        case Self.continuationType where state.following:
            state.prefixLeft = 0
            state.fragmentLeft = state.length
            state.part = .fragment
        default:
            break
        }
        if state.payloadLeft == 0 { endFrame() }
    }

    private mutating func endFrame() {
        let isBlock = state.type == Self.headersType || state.type == Self.continuationType
        if isBlock && state.flags & Self.endHeaders != 0 { stopFollowing() }
        state.part = .frameHeader
    }

    /// The rest of this block passes unfollowed (its frames' payloads are skipped): nghttp2
    /// judges it as it is.
    private mutating func stopFollowing() {
        state.following = false
        state.field = .start
        lengthStart = nil
    }

    /// Where to hold back from: the start of a value's length that has not arrived whole, if
    /// it is not too far back.
    private mutating func holdPoint(_ count: Int) -> Int? {
        guard state.following, case .length(isValue: true, _, _) = state.field, let start = lengthStart else { return nil }
        guard count - start.index <= Self.maxHeldBytes else {
            stopFollowing()
            return nil
        }
        return start.index
    }

    // MARK: Fields

    private enum FieldStep {
        case start
        /// Continuation bytes of an index; then a value string, or the next field.
        case index(thenValue: Bool)
        case stringStart(isValue: Bool)
        case length(isValue: Bool, value: Int, shift: Int)
        case body(left: Int, isValue: Bool)
        case rewriting(left: Int)
    }

    private enum FollowEnd {
        case reachedEnd
        /// Stopped before the byte at `index`, which must change.
        case writesAt(Int)
        /// The state went back to where a value's length began, at `index`.
        case rescanFrom(Int)
    }

    /// After a literal's first byte: a name string follows when the index is 0, else a value.
    private static func afterLiteral(index: UInt8, prefixMask: UInt8) -> FieldStep {
        if index == 0 { return .stringStart(isValue: false) }
        return index == prefixMask ? .index(thenValue: true) : .stringStart(isValue: true)
    }

    private static func after(string isValue: Bool) -> FieldStep {
        isValue ? .start : .stringStart(isValue: true)
    }

    private mutating func followFields(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int,
                                       writable: UnsafeMutableRawBufferPointer?, rewritten: (Rewrite) -> Void) -> FollowEnd {
        var i = start
        while i < end {
            switch state.field {
            case .start:
                let byte = bytes[i]
                i += 1
                if byte & 0x80 != 0 {
                    if byte & 0x7f == 0x7f { state.field = .index(thenValue: false) }
                } else if byte & 0x40 != 0 {
                    state.field = Self.afterLiteral(index: byte & 0x3f, prefixMask: 0x3f)
                } else if byte & 0x20 != 0 {
                    if byte & 0x1f == 0x1f { state.field = .index(thenValue: false) }
                } else {
                    state.field = Self.afterLiteral(index: byte & 0x0f, prefixMask: 0x0f)
                }
            case let .index(thenValue):
                let byte = bytes[i]
                i += 1
                if byte & 0x80 == 0 { state.field = thenValue ? .stringStart(isValue: true) : .start }
            case let .stringStart(isValue):
                let byte = bytes[i]
                if byte & 0x7f == 0x7f {
                    if isValue {
                        var before = state
                        // Counters as they are at this byte, for a rescan from here.
                        before.fragmentLeft -= i - start
                        before.payloadLeft -= i - start
                        lengthStart = (i, before)
                        lengthPositions.removeAll(keepingCapacity: true)
                        lengthPositions.append(i)
                    }
                    state.field = .length(isValue: isValue, value: 127, shift: 0)
                } else {
                    let length = Int(byte & 0x7f)
                    state.field = length == 0 ? Self.after(string: isValue) : .body(left: length, isValue: isValue)
                }
                i += 1
            case let .length(isValue, value, shift):
                let byte = bytes[i]
                if isValue { lengthPositions.append(i) }
                i += 1
                let total = value + Int(byte & 0x7f) << shift
                if byte & 0x80 != 0 {
                    // Longer than nghttp2 reads (it stops at 2^32): its error, not ours.
                    guard shift < 28 else {
                        stopFollowing()
                        return .reachedEnd
                    }
                    state.field = .length(isValue: isValue, value: total, shift: shift + 7)
                    continue
                }
                guard isValue, total > Self.decoderStringLimit, let start = lengthStart else {
                    state.field = total == 0 ? Self.after(string: isValue) : .body(left: total, isValue: isValue)
                    continue
                }
                guard let writable else {
                    state = start.state
                    return .rescanFrom(start.index)
                }
                let length = Self.encodeLength(Self.replacementLength, byteCount: lengthPositions.count)
                for (position, byte) in zip(lengthPositions, length) { writable[position] = byte }
                lengthStart = nil
                state.writer = ReplacementWriter(replacing: total)
                state.field = .rewriting(left: total)
                rewritten(Rewrite(streamID: state.blockStreamID))
            case let .body(left, isValue):
                let taken = min(left, end - i)
                i += taken
                state.field = taken == left ? Self.after(string: isValue) : .body(left: left - taken, isValue: isValue)
            case let .rewriting(left):
                guard let writable else { return .writesAt(i) }
                let taken = min(left, end - i)
                state.writer.fill(UnsafeMutableRawBufferPointer(rebasing: writable[i..<(i + taken)]))
                i += taken
                state.field = taken == left ? .start : .rewriting(left: left - taken)
            }
        }
        return .reachedEnd
    }

    /// `value` as an HPACK integer with a 7-bit prefix (a raw string's length) in exactly
    /// `byteCount` bytes, padded with empty continuation groups, which decoders accept.
    static func encodeLength(_ value: Int, byteCount: Int) -> [UInt8] {
        var bytes: [UInt8] = [0x7f]
        var rest = value - 127
        for index in 1..<byteCount {
            let more: UInt8 = index == byteCount - 1 ? 0 : 0x80
            bytes.append(UInt8(rest & 0x7f) | more)
            rest >>= 7
        }
        return bytes
    }

    /// The bytes of an HPACK integer with a 7-bit prefix, at its shortest.
    static func lengthByteCount(_ value: Int) -> Int {
        guard value >= 127 else { return 1 }
        var rest = value - 127
        var count = 2
        while rest >= 128 {
            rest >>= 7
            count += 1
        }
        return count
    }
}

/// Writes what replaces an oversized value's bytes: ``OversizedValueFilter/replacementLength``
/// bytes of `x`, then literal fields `x: xxx…`, not indexed, that fill the rest exactly.
private struct ReplacementWriter {
    /// The largest filler field: a value of 60,000 bytes (length in 4 bytes) and 3 bytes before.
    static let largestField = 60_007
    /// Filler sizes no single field has: a length's byte count grows there.
    static let unreachableSizes: Set<Int> = [131, 260, 16_517]

    private var contentLeft = 0
    private var fillerLeft = 0
    private var head: [UInt8] = []
    private var headIndex = 0
    private var valueLeft = 0

    init() {}

    init(replacing length: Int) {
        contentLeft = OversizedValueFilter.replacementLength
        fillerLeft = length - OversizedValueFilter.replacementLength
    }

    mutating func fill(_ out: UnsafeMutableRawBufferPointer) {
        var i = 0
        while i < out.count {
            if headIndex < head.count {
                out[i] = head[headIndex]
                headIndex += 1
                i += 1
            } else if contentLeft > 0 || valueLeft > 0 {
                let fromContent = contentLeft > 0
                let taken = min(fromContent ? contentLeft : valueLeft, out.count - i)
                UnsafeMutableRawBufferPointer(rebasing: out[i..<(i + taken)]).initializeMemory(as: UInt8.self, repeating: UInt8(ascii: "x"))
                if fromContent { contentLeft -= taken } else { valueLeft -= taken }
                i += taken
            } else if fillerLeft > 0 {
                startField()
            } else {
                return
            }
        }
    }

    /// Lays out the next filler field: literal without indexing, new name `x`.
    private mutating func startField() {
        let size: Int
        if fillerLeft <= Self.largestField {
            size = Self.unreachableSizes.contains(fillerLeft) ? 4 : fillerLeft
        } else {
            // Leaves at least a 4-byte length's worth, which one more field can always fill.
            size = min(Self.largestField, fillerLeft - 16_518)
        }
        var valueLength = 0
        for lengthBytes in 1...4 {
            let candidate = size - 3 - lengthBytes
            if candidate >= 0, OversizedValueFilter.lengthByteCount(candidate) == lengthBytes {
                valueLength = candidate
                break
            }
        }
        head = [0x00, 0x01, UInt8(ascii: "x")]
        head += valueLength < 127 ? [UInt8(valueLength)]
            : OversizedValueFilter.encodeLength(valueLength, byteCount: OversizedValueFilter.lengthByteCount(valueLength))
        headIndex = 0
        valueLeft = valueLength
        fillerLeft -= size
    }
}
