/// A strict, incremental HTTP/1.1 request parser that reads the bytes where they are.
///
/// Each ``parse(_:)`` call returns one event and how many bytes it consumed. The caller
/// calls again with the bytes after those, until ``Event/needMoreInput``:
///
/// - ``Event/head``: the head is in; ``head`` says where its parts lie in the head's bytes,
///   which are the last `head.size` bytes consumed.
/// - ``Event/body(_:)``: body bytes, at that range of the input (chunked bodies decoded).
/// - ``Event/end``: the request is complete; the next byte begins the next one (pipelining).
///
/// A head or a trailer section that is not complete is not consumed: after
/// ``Event/needMoreInput`` the caller presents the unconsumed bytes again, followed by new
/// ones. The parser remembers how far it got, so each byte is examined once however the
/// input is split; only a section that is not complete is kept by the caller, bounded by
/// ``HTTP1ParserLimits/maxHeadSize``.
///
/// What it refuses, with an ``HTTP1ParseError`` (after which it reads nothing more):
/// anything RFC 9112 does not allow, and every ambiguity a request could be smuggled
/// through: `Content-Length` with `Transfer-Encoding`, a second `Content-Length` (even an
/// equal one), a `Content-Length` list, obs-fold, a CR without LF or an LF without CR,
/// whitespace before a colon, a transfer coding other than `chunked` alone,
/// `Transfer-Encoding` in HTTP/1.0, a malformed chunk size, control characters in names,
/// values and the request line, and versions other than HTTP/1.0 and 1.1 (505). Empty lines
/// before a request line are skipped (RFC 9112 section 2.2); trailer fields are checked as
/// header fields are, then dropped.
public struct HTTP1RequestParser: Sendable {
    /// What one ``parse(_:)`` call found.
    public enum Event: Sendable, Hashable {
        /// The input ends inside a request (or before one begins).
        case needMoreInput
        /// The request's head is complete: see ``HTTP1RequestParser/head``.
        case head
        /// Body bytes, at this range of the input.
        case body(Range<Int>)
        /// The request is complete.
        case end
    }

    private enum Phase: UInt8 {
        case idle, method, target, version, fieldLine, fieldName, fieldWhitespace, fieldValue
        case body, chunkSize, chunkExtension, chunkSizeLF, chunkData, chunkDataCR, chunkDataLF, complete
    }

    /// The limits this parser enforces.
    public let limits: HTTP1ParserLimits
    /// The head of the request being read: complete from ``Event/head`` until the next
    /// request begins; after an error, what was read of it (fields before the one that failed).
    public private(set) var head = HTTP1RequestHead()
    /// Where ``head`` begins in the input of the last ``parse(_:)`` call, while the head is
    /// read or when it failed (after the empty lines skipped before it; 0 when the call went on
    /// with a head begun earlier).
    public private(set) var headStart = 0

    /// A request has begun (its first byte other than the empty lines before it) and is not complete.
    public var isReadingRequest: Bool { phase != .idle }

    private var phase = Phase.idle
    /// Reading the trailer section, whose fields are checked and dropped.
    private var inTrailers = false
    // Where the section (head or trailers) being read had got to, from its first byte.
    private var position = 0
    private var mark = 0
    private var nameEnd = 0
    private var valueStart = 0
    private var valueEnd = 0
    private var listSize = 0
    private var fieldCount = 0
    // What the head's fields said, checked once it is complete.
    private var sawTransferEncoding = false
    private var sawUpgrade = false
    private var connectionClose = false
    private var connectionKeepAlive = false
    private var connectionUpgrade = false
    // The body.
    private var remaining = 0
    private var bodySize = 0
    private var chunkDigits = 0
    private var chunkLineSize = 0
    private var chunkExtensionStarted = false

    /// The longest chunk-size line, extensions included; they are ignored, so this is plenty.
    static let maxChunkLineSize = 4096

    public init(limits: HTTP1ParserLimits = HTTP1ParserLimits()) {
        self.limits = limits
        head.fields.reserveCapacity(8)
    }

    /// Reads from the start of `input` until it has an event.
    ///
    /// - Returns: The event and how many bytes of `input` it consumed.
    /// - Throws: ``HTTP1ParseError`` when the request is not one this parser accepts; the
    ///   parser must not be called again.
    public mutating func parse(_ input: UnsafeRawBufferPointer) throws(HTTP1ParseError) -> (event: Event, consumed: Int) {
        switch phase {
        case .idle:
            return try begin(input)
        case .method, .target, .version, .fieldLine, .fieldName, .fieldWhitespace, .fieldValue:
            if !inTrailers { headStart = 0 }
            return try readSection(input)
        case .body:
            let count = min(remaining, input.count)
            guard count > 0 else { return (.needMoreInput, 0) }
            remaining -= count
            if remaining == 0 { phase = .complete }
            return (.body(0..<count), count)
        case .chunkSize, .chunkExtension, .chunkSizeLF, .chunkData, .chunkDataCR, .chunkDataLF:
            return try readChunks(input)
        case .complete:
            phase = .idle
            return (.end, 0)
        }
    }

    // MARK: Head and trailers

    /// Skips the empty lines before a request, then starts its head.
    private mutating func begin(_ input: UnsafeRawBufferPointer) throws(HTTP1ParseError) -> (event: Event, consumed: Int) {
        var i = 0
        while i < input.count {
            let byte = input[i]
            if byte == .cr {
                guard i + 1 < input.count else { return (.needMoreInput, i) }
                guard input[i + 1] == .lf else { throw HTTP1ParseError(.bareCR) }
                i += 2
            } else if byte == .lf {
                throw HTTP1ParseError(.bareLF)
            } else {
                break
            }
        }
        guard i < input.count else { return (.needMoreInput, i) }
        // Keeps the storage, as removeAll(keepingCapacity:) does, and skips the work for no fields.
        head.fields.removeLast(head.fields.count)
        head.contentLength = nil
        head.isChunked = false
        head.isUpgrade = false
        head.method = 0..<0
        head.target = 0..<0
        sawTransferEncoding = false
        sawUpgrade = false
        connectionClose = false
        connectionKeepAlive = false
        connectionUpgrade = false
        inTrailers = false
        bodySize = 0
        headStart = i
        startSection(at: .method)
        let (event, consumed) = try readSection(UnsafeRawBufferPointer(rebasing: input[i...]))
        return (event, i + consumed)
    }

    private mutating func startSection(at first: Phase) {
        phase = first
        position = 0
        mark = 0
        listSize = 0
        fieldCount = 0
    }

    /// Reads a head or a trailer section; `input` starts at the section's first byte.
    private mutating func readSection(_ input: UnsafeRawBufferPointer) throws(HTTP1ParseError) -> (event: Event, consumed: Int) {
        let end = input.count
        var i = position
        // Each phase falls through to the next, so the switch is taken once per call and per
        // field line, not once per part of a line.
        while true {
            switch phase {
            case .method:
                while i < end, input[i].isTokenCharacter { i += 1 }
                guard i < end else { return try needMore(input, at: i) }
                guard input[i] == .space, i > 0 else { throw HTTP1ParseError(.invalidRequestLine) }
                guard Self.isKnownMethod(input, 0..<i) else {
                    throw HTTP1ParseError(.unknownMethod)
                }
                head.method = 0..<i
                i += 1
                mark = i
                phase = .target
                fallthrough
            case .target:
                while i < end, input[i] > .space, input[i] < .delete { i += 1 }
                guard i < end else { return try needMore(input, at: i) }
                guard input[i] == .space, i > mark else { throw HTTP1ParseError(.invalidRequestLine) }
                head.target = mark..<i
                listSize = i - mark
                i += 1
                mark = i
                phase = .version
                fallthrough
            case .version:
                // HTTP/d.d CRLF
                guard end - i >= 10 else { return try needMore(input, at: i) }
                guard input[i] == .H, input[i + 1] == .T, input[i + 2] == .T, input[i + 3] == .P, input[i + 4] == .slash,
                      input[i + 5].isDigit, input[i + 6] == .period, input[i + 7].isDigit, input[i + 8] == .cr
                else { throw HTTP1ParseError(.invalidRequestLine) }
                guard input[i + 9] == .lf else { throw HTTP1ParseError(.bareCR) }
                guard i + 8 <= limits.maxRequestLineSize else {
                    throw HTTP1ParseError(.requestLineTooLong, limit: limits.maxRequestLineSize)
                }
                head.majorVersion = Int(input[i + 5] &- .zero)
                head.minorVersion = Int(input[i + 7] &- .zero)
                guard listSize <= limits.maxHeaderListSize else {
                    throw HTTP1ParseError(.headerListTooLarge, limit: limits.maxHeaderListSize)
                }
                i += 10
                phase = .fieldLine
                fallthrough
            case .fieldLine:
                guard i < end else { return try needMore(input, at: i) }
                let byte = input[i]
                if byte == .cr {
                    guard i + 1 < end else { return try needMore(input, at: i) }
                    guard input[i + 1] == .lf else { throw HTTP1ParseError(.bareCR) }
                    return try endSection(input, size: i + 2)
                }
                if byte == .space || byte == .tab { throw HTTP1ParseError(.obsFold) }
                if byte == .lf { throw HTTP1ParseError(.bareLF) }
                mark = i
                phase = .fieldName
                fallthrough
            case .fieldName:
                while i < end, input[i].isTokenCharacter { i += 1 }
                guard i < end else { return try needMore(input, at: i) }
                let byte = input[i]
                guard byte == .colon, i > mark else {
                    throw HTTP1ParseError(byte == .space || byte == .tab ? .whitespaceBeforeColon : .invalidFieldName)
                }
                nameEnd = i
                i += 1
                phase = .fieldWhitespace
                fallthrough
            case .fieldWhitespace:
                while i < end, input[i] == .space || input[i] == .tab { i += 1 }
                guard i < end else { return try needMore(input, at: i) }
                valueStart = i
                valueEnd = i
                phase = .fieldValue
                fallthrough
            case .fieldValue:
                var valueEnd = self.valueEnd
                while i < end {
                    let byte = input[i]
                    if byte > .space, byte != .delete {
                        i += 1
                        // The rest of a run of visible bytes in a loop of its own: most of a value.
                        while i < end, input[i] > .space, input[i] != .delete { i += 1 }
                        valueEnd = i
                    } else if byte == .space || byte == .tab {
                        i += 1
                    } else {
                        break
                    }
                }
                self.valueEnd = valueEnd
                guard i < end, i + 1 < end || input[i] != .cr else { return try needMore(input, at: i) }
                let byte = input[i]
                guard byte == .cr else { throw HTTP1ParseError(byte == .lf ? .bareLF : .invalidFieldValue) }
                guard input[i + 1] == .lf else { throw HTTP1ParseError(.bareCR) }
                try addField(in: input)
                i += 2
                phase = .fieldLine
            default:
                preconditionFailure("readSection in phase \(phase)")
            }
        }
    }

    /// The section is not complete: checks that its bytes so far are within the limits,
    /// so a section that could only fail does not grow, then asks for the rest.
    private mutating func needMore(_ input: UnsafeRawBufferPointer, at i: Int) throws(HTTP1ParseError) -> (event: Event, consumed: Int) {
        position = i
        if input.count > limits.maxHeadSize { throw HTTP1ParseError(.headTooLarge, limit: limits.maxHeadSize) }
        switch phase {
        case .method, .target, .version:
            if input.count >= limits.maxRequestLineSize + 2 {
                throw HTTP1ParseError(.requestLineTooLong, limit: limits.maxRequestLineSize)
            }
            if phase == .target, i - mark > limits.maxHeaderListSize {
                throw HTTP1ParseError(.headerListTooLarge, limit: limits.maxHeaderListSize)
            }
        case .fieldName:
            if listSize + (i - mark) + 32 > limits.maxHeaderListSize {
                throw HTTP1ParseError(.headerListTooLarge, limit: limits.maxHeaderListSize)
            }
        case .fieldWhitespace, .fieldValue:
            let valueSize = phase == .fieldValue ? valueEnd - valueStart : 0
            if listSize + (nameEnd - mark) + valueSize + 32 > limits.maxHeaderListSize {
                throw HTTP1ParseError(.headerListTooLarge, limit: limits.maxHeaderListSize)
            }
        default:
            break
        }
        return (.needMoreInput, 0)
    }

    private mutating func addField(in input: UnsafeRawBufferPointer) throws(HTTP1ParseError) {
        let name = mark..<nameEnd
        let value = valueStart..<valueEnd
        listSize += name.count + value.count + 32
        fieldCount += 1
        guard listSize <= limits.maxHeaderListSize else {
            throw HTTP1ParseError(.headerListTooLarge, limit: limits.maxHeaderListSize)
        }
        guard fieldCount <= limits.maxFieldCount else { throw HTTP1ParseError(.tooManyFields, limit: limits.maxFieldCount) }
        guard !inTrailers else { return }
        head.fields.append(HTTP1RequestHead.Field(name: name, value: value))
        switch name.count {
        case 14 where input.matches(name, lowercased: "content-length"):
            guard head.contentLength == nil else { throw HTTP1ParseError(.duplicateContentLength) }
            head.contentLength = try Self.decimal(input, value)
        case 17 where input.matches(name, lowercased: "transfer-encoding"):
            guard !sawTransferEncoding, value.count == 7, input.matches(value, lowercased: "chunked") else {
                throw HTTP1ParseError(.unsupportedTransferCoding)
            }
            sawTransferEncoding = true
        case 10 where input.matches(name, lowercased: "connection"):
            readConnectionOptions(input, value)
        case 7 where input.matches(name, lowercased: "upgrade"):
            sawUpgrade = true
        default:
            break
        }
    }

    /// RFC 9110's methods and PATCH (RFC 5789): what a server here is asked for. Others
    /// are refused (400) before their request is read.
    private static func isKnownMethod(_ input: UnsafeRawBufferPointer, _ method: Range<Int>) -> Bool {
        switch method.count {
        case 3: input.equals(method, "GET") || input.equals(method, "PUT")
        case 4: input.equals(method, "POST") || input.equals(method, "HEAD")
        case 5: input.equals(method, "PATCH") || input.equals(method, "TRACE")
        case 6: input.equals(method, "DELETE")
        case 7: input.equals(method, "OPTIONS") || input.equals(method, "CONNECT")
        default: false
        }
    }

    /// `1*DIGIT`, nothing else: no sign, no list, no inner whitespace.
    private static func decimal(_ input: UnsafeRawBufferPointer, _ range: Range<Int>) throws(HTTP1ParseError) -> Int {
        guard !range.isEmpty else { throw HTTP1ParseError(.invalidContentLength) }
        var value = 0
        for i in range {
            let byte = input[i]
            guard byte.isDigit, value <= (Int.max - 9) / 10 else { throw HTTP1ParseError(.invalidContentLength) }
            value = value * 10 + Int(byte &- .zero)
        }
        return value
    }

    /// The `Connection` options that matter here: `close`, `keep-alive`, `upgrade`.
    private mutating func readConnectionOptions(_ input: UnsafeRawBufferPointer, _ value: Range<Int>) {
        var start = value.lowerBound
        while start < value.upperBound {
            var end = start
            while end < value.upperBound, input[end] != .comma { end += 1 }
            var first = start
            var last = end
            while first < last, input[first] == .space || input[first] == .tab { first += 1 }
            while last > first, input[last - 1] == .space || input[last - 1] == .tab { last -= 1 }
            let option = first..<last
            if option.count == 5, input.matches(option, lowercased: "close") { connectionClose = true }
            if option.count == 10, input.matches(option, lowercased: "keep-alive") { connectionKeepAlive = true }
            if option.count == 7, input.matches(option, lowercased: "upgrade") { connectionUpgrade = true }
            start = end + 1
        }
    }

    /// The empty line that ends a head or the trailers: checks what the head's fields say
    /// together, and where the body is.
    private mutating func endSection(_ input: UnsafeRawBufferPointer, size: Int) throws(HTTP1ParseError) -> (event: Event, consumed: Int) {
        guard size <= limits.maxHeadSize else { throw HTTP1ParseError(.headTooLarge, limit: limits.maxHeadSize) }
        if inTrailers {
            phase = .idle
            return (.end, size)
        }
        head.size = size
        guard head.majorVersion == 1, head.minorVersion <= 1 else { throw HTTP1ParseError(.unsupportedVersion) }
        if sawTransferEncoding {
            guard head.contentLength == nil else { throw HTTP1ParseError(.contentLengthWithTransferEncoding) }
            guard head.minorVersion == 1 else { throw HTTP1ParseError(.transferEncodingInHTTP10) }
            head.isChunked = true
        }
        if let length = head.contentLength, length > limits.maxBodySize {
            throw HTTP1ParseError(.bodyTooLarge, limit: limits.maxBodySize)
        }
        let isConnect = input.equals(head.method, "CONNECT")
        head.isUpgrade = isConnect || (sawUpgrade && connectionUpgrade)
        head.keepAlive = !head.isUpgrade && (head.minorVersion == 1 ? !connectionClose : connectionKeepAlive)
        if isConnect {
            phase = .complete
        } else if head.isChunked {
            phase = .chunkSize
            remaining = 0
            chunkDigits = 0
            chunkLineSize = 0
            chunkExtensionStarted = false
        } else if let length = head.contentLength, length > 0 {
            phase = .body
            remaining = length
        } else {
            phase = .complete
        }
        return (.head, size)
    }

    // MARK: Chunked body

    private mutating func readChunks(_ input: UnsafeRawBufferPointer) throws(HTTP1ParseError) -> (event: Event, consumed: Int) {
        var i = 0
        while i < input.count {
            let byte = input[i]
            switch phase {
            case .chunkSize:
                if let digit = byte.hexValue {
                    guard remaining <= (Int.max - 15) / 16 else { throw HTTP1ParseError(.invalidChunk) }
                    remaining = remaining * 16 + Int(digit)
                    chunkDigits += 1
                    guard remaining <= limits.maxBodySize - bodySize else {
                        throw HTTP1ParseError(.bodyTooLarge, limit: limits.maxBodySize)
                    }
                } else if chunkDigits == 0 {
                    throw HTTP1ParseError(.invalidChunk)
                } else if byte == .cr {
                    phase = .chunkSizeLF
                } else if byte == .semicolon || byte == .space || byte == .tab {
                    chunkExtensionStarted = byte == .semicolon
                    phase = .chunkExtension
                } else {
                    throw HTTP1ParseError(byte == .lf ? .bareLF : .invalidChunk)
                }
            case .chunkExtension:
                // BWS ";" then the extension, which is ignored: any visible bytes, spaces and tabs.
                if byte == .cr {
                    guard chunkExtensionStarted else { throw HTTP1ParseError(.invalidChunk) }
                    phase = .chunkSizeLF
                } else if byte == .semicolon {
                    chunkExtensionStarted = true
                } else if byte == .space || byte == .tab || (chunkExtensionStarted && byte > .space && byte != .delete) {
                    // part of the extension, or whitespace before it
                } else {
                    throw HTTP1ParseError(byte == .lf ? .bareLF : .invalidChunk)
                }
            case .chunkSizeLF:
                guard byte == .lf else { throw HTTP1ParseError(.bareCR) }
                i += 1
                chunkLineSize = 0
                chunkDigits = 0
                chunkExtensionStarted = false
                if remaining == 0 {
                    inTrailers = true
                    startSection(at: .fieldLine)
                    let (event, consumed) = try readSection(UnsafeRawBufferPointer(rebasing: input[i...]))
                    return (event, i + consumed)
                }
                bodySize += remaining
                phase = .chunkData
                continue
            case .chunkData:
                let count = min(remaining, input.count - i)
                remaining -= count
                if remaining == 0 { phase = .chunkDataCR }
                return (.body(i..<(i + count)), i + count)
            case .chunkDataCR:
                guard byte == .cr else { throw HTTP1ParseError(.invalidChunk) }
                phase = .chunkDataLF
            case .chunkDataLF:
                guard byte == .lf else { throw HTTP1ParseError(.bareCR) }
                phase = .chunkSize
                i += 1
                continue
            default:
                preconditionFailure("readChunks in phase \(phase)")
            }
            i += 1
            if phase == .chunkSize || phase == .chunkExtension || phase == .chunkSizeLF {
                chunkLineSize += 1
                guard chunkLineSize <= Self.maxChunkLineSize else { throw HTTP1ParseError(.invalidChunk) }
            }
        }
        return (.needMoreInput, i)
    }
}

extension UInt8 {
    fileprivate static let tab = UInt8(ascii: "\t")
    fileprivate static let lf = UInt8(ascii: "\n")
    fileprivate static let cr = UInt8(ascii: "\r")
    fileprivate static let space = UInt8(ascii: " ")
    fileprivate static let comma = UInt8(ascii: ",")
    fileprivate static let period = UInt8(ascii: ".")
    fileprivate static let slash = UInt8(ascii: "/")
    fileprivate static let zero = UInt8(ascii: "0")
    fileprivate static let colon = UInt8(ascii: ":")
    fileprivate static let semicolon = UInt8(ascii: ";")
    fileprivate static let H = UInt8(ascii: "H")
    fileprivate static let P = UInt8(ascii: "P")
    fileprivate static let T = UInt8(ascii: "T")
    fileprivate static let delete: UInt8 = 0x7F

    /// RFC 9110's `tchar`, as a bit set over ASCII: ``!#$%&'*+-.^_`|~``, digits and letters.
    private static let tokenBitsLow: UInt64 = 0x03FF_6CFA_0000_0000
    private static let tokenBitsHigh: UInt64 = 0x57FF_FFFF_C7FF_FFFE

    fileprivate var isTokenCharacter: Bool {
        let bits = self < 64 ? Self.tokenBitsLow : Self.tokenBitsHigh
        return self < 128 && (bits >> UInt64(self & 63)) & 1 != 0
    }

    fileprivate var isDigit: Bool { self &- .zero < 10 }

    fileprivate var hexValue: UInt8? {
        if self &- .zero < 10 { return self &- .zero }
        let folded = (self | 0x20) &- UInt8(ascii: "a")
        return folded < 6 ? folded + 10 : nil
    }
}

extension UnsafeRawBufferPointer {
    /// The bytes at `range` equal `lowercased` ignoring ASCII case; `lowercased` is letters
    /// and `-`, and the bytes are tokens or field values, so folding bit 5 is exact.
    @inline(__always)
    fileprivate func matches(_ range: Range<Int>, lowercased: StaticString) -> Bool {
        guard range.count == lowercased.utf8CodeUnitCount else { return false }
        let expected = lowercased.utf8Start
        for offset in 0..<range.count where self[range.lowerBound + offset] | 0x20 != expected[offset] { return false }
        return true
    }

    /// The bytes at `range` are exactly `text`.
    @inline(__always)
    fileprivate func equals(_ range: Range<Int>, _ text: StaticString) -> Bool {
        guard range.count == text.utf8CodeUnitCount else { return false }
        let expected = text.utf8Start
        for offset in 0..<range.count where self[range.lowerBound + offset] != expected[offset] { return false }
        return true
    }
}
