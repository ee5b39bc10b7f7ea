import StrictJSON
internal import SystemSeam

/// Reads a capture file record by record in constant memory: one read buffer and at most
/// one line, however long the file.
///
/// Lines that are not records of version 1 or 2 are skipped and reported, by kind (damaged, another
/// format version, too long); so is a last line without its newline, which is what a crash
/// mid-write leaves. Each is passed to `onWarning` as it is skipped; ``warnings`` keeps only
/// the first ``keptWarnings`` and ``warningCount`` counts them all, so damaged input cannot
/// grow memory. Only failing system calls throw: which kinds are errors is the caller's call
/// (push-inspect: only damaged complete lines).
///
/// Reading stops early when the calling task is cancelled: endless input that holds no
/// record (`/dev/urandom`, say) never returns one, so a caller has no other chance to stop.
///
/// ```swift
/// let reader = try CaptureFileReader(path: "pushes.jsonl") { print("warning: \($0)") }
/// while let record = try reader.next() { print(record.outcome.status) }
/// ```
public final class CaptureFileReader {
    /// The longest line read; longer ones are skipped with a warning. Far above any real
    /// record (payloads are at most a few KiB), low enough to bound memory.
    public static let defaultMaximumLineLength = 16 << 20
    private static let chunkSize = 64 << 10

    /// The file read.
    public let path: String
    /// How many skipped lines ``warnings`` keeps.
    public static let keptWarnings = 100

    /// The first ``keptWarnings`` lines skipped, in file order.
    public private(set) var warnings: [CaptureReadWarning] = []
    /// How many lines were skipped so far, kept or not.
    public private(set) var warningCount = 0
    /// How many complete lines were read so far, records or skipped.
    public private(set) var lineNumber = 0
    /// How many lines of the other kinds this package writes (delivery events) were read and
    /// passed over: they are not pushes, and not skipped with a warning.
    public private(set) var otherKindLineCount = 0
    /// Called with each line of another kind this package writes (a delivery event, which
    /// ``CaptureDeliveryEvent/init(decoding:)`` reads), without its newline; ``next()``
    /// returns only pushes.
    public var onOtherKindLine: (([UInt8]) -> Void)?
    /// Whether the end of a pipe, socket or terminal (standard input, say) has been read.
    /// Unlike a regular file's end, that one is final: no more lines will come.
    public private(set) var isAtEndOfStream = false

    private let fd: Int32
    /// Set for a pipe, socket or terminal, which ``CaptureFileFollower`` reads without blocking.
    let isStream: Bool
    /// Set for a FIFO opened without blocking, which reads as ended until a writer opens it.
    private let waitsForWriter: Bool
    private let maximumLineLength: Int
    private var chunk: [UInt8]
    private var chunkStart = 0
    private var chunkEnd = 0
    /// The current line when it spans reads.
    private var carry: [UInt8] = []
    /// Set while discarding the rest of an over-long line.
    private var skippingLongLine = false
    /// The file offset of `chunk[chunkStart]`, and of the current line's start.
    private var offset: UInt64 = 0
    private var lineStart: UInt64 = 0
    private let onWarning: ((CaptureReadWarning) -> Void)?
    /// A malformed line not yet reported: if the next line is a record with `seq` 1, it is
    /// what a crash left before a restart, a warning; otherwise it is damage.
    private var heldMalformed: CaptureReadWarning?

    /// Opens a capture file for reading.
    ///
    /// - Parameters:
    ///   - path: the capture file.
    ///   - maximumLineLength: longer lines are skipped with a warning.
    ///   - onWarning: called with each line skipped, as it is skipped.
    /// - Throws: `CaptureFileError` if it cannot be opened.
    public convenience init(
        path: String, maximumLineLength: Int = defaultMaximumLineLength, onWarning: ((CaptureReadWarning) -> Void)? = nil
    ) throws(CaptureFileError) {
        try self.init(path: path, maximumLineLength: maximumLineLength, nonBlocking: false, onWarning: onWarning)
    }

    /// Opens a capture file; with `nonBlocking`, a pipe, socket or terminal is read without
    /// waiting (``nextAvailable()`` returns nil until data arrives), so that a follower can
    /// poll it and stop when its task is cancelled.
    init(
        path: String, maximumLineLength: Int = defaultMaximumLineLength, nonBlocking: Bool,
        onWarning: ((CaptureReadWarning) -> Void)?
    ) throws(CaptureFileError) {
        // Non-blocking from the open on: opening a FIFO no one writes would otherwise wait
        // where cancelling the task cannot reach it. Only this open file description is
        // affected: `open` makes a new one, even for /dev/stdin.
        let fd = open(path, O_RDONLY | O_CLOEXEC | (nonBlocking ? O_NONBLOCK : 0))
        guard fd >= 0 else { throw CaptureFileError(operation: "open", path: path, code: errno) }
        var status = stat()
        let isStream = fstat(fd, &status) == 0 && [S_IFIFO, S_IFSOCK, S_IFCHR].contains(status.st_mode & S_IFMT)
        waitsForWriter = nonBlocking && status.st_mode & S_IFMT == S_IFIFO
        self.fd = fd
        self.path = path
        self.isStream = isStream
        self.maximumLineLength = max(1, maximumLineLength)
        self.onWarning = onWarning
        chunk = [UInt8](repeating: 0, count: Self.chunkSize)
    }

    deinit {
        _ = close(fd)
    }

    /// The next record, or nil at the end of the file. A final line without a newline is
    /// reported as ``CaptureReadWarning/Kind/truncatedLastLine`` and skipped.
    ///
    /// Also nil, without reaching the end, once the calling task is cancelled: check
    /// `Task.isCancelled` to tell the two apart.
    ///
    /// - Throws: `CaptureFileError` if reading fails.
    public func next() throws(CaptureFileError) -> CaptureRecord? {
        if let record = try nextAvailable() { return record }
        // Stopped early, the line held back may yet be completed: it is not the last one.
        if !Task.isCancelled { finish() }
        return nil
    }

    /// Ends reading where ``nextAvailable()`` stopped: a partial last line it holds back is
    /// reported as ``CaptureReadWarning/Kind/truncatedLastLine`` and dropped, as ``next()``
    /// does at the end of the file. ``CaptureFileFollower`` calls it when following stops,
    /// because the line will not be completed for this reader any more.
    public func finish() {
        releaseHeldMalformed()
        guard !carry.isEmpty || skippingLongLine else { return }
        skip(CaptureReadWarning(
            kind: .truncatedLastLine, lineNumber: lineNumber + 1, byteOffset: lineStart,
            message: "the file ends in the middle of a line (\(offset - lineStart) bytes), as a crash mid-write leaves it"))
        lineNumber += 1
        carry.removeAll()
        skippingLongLine = false
        lineStart = offset
    }

    /// The next record whose line is complete, or nil when there is none yet (or the calling
    /// task is cancelled). A partial last line stays pending, so calling this again after the
    /// file grows picks up where it was: this is how ``CaptureFileFollower`` follows a file
    /// being written.
    ///
    /// - Throws: `CaptureFileError` if reading fails.
    public func nextAvailable() throws(CaptureFileError) -> CaptureRecord? {
        while true {
            if chunkStart == chunkEnd {
                // Once per chunk: cheap, and often enough to stop within a moment.
                guard !Task.isCancelled else { return nil }
                guard try fill() else { return nil }
            }
            if let record = scanLine() { return record }
        }
    }

    /// How many bytes have been read from the file: where the next read starts.
    var bytesRead: UInt64 { offset + UInt64(chunkEnd - chunkStart) }

    /// The status of the open file (not of whatever its path names now), nil if `fstat`
    /// fails.
    func openFileStatus() -> stat? {
        var status = stat()
        return fstat(fd, &status) == 0 ? status : nil
    }

    /// Starts over at the beginning of the file, as if just opened: for a follower whose
    /// file was truncated, where what was read (a partial line with it) is gone. Line
    /// numbers restart too, so a warning names the line of the file as it is now.
    ///
    /// - Throws: `CaptureFileError` if the file cannot be rewound.
    func rewind() throws(CaptureFileError) {
        guard lseek(fd, 0, SEEK_SET) == 0 else { throw CaptureFileError(operation: "seek", path: path, code: errno) }
        chunkStart = 0
        chunkEnd = 0
        carry.removeAll()
        skippingLongLine = false
        heldMalformed = nil
        offset = 0
        lineStart = 0
        lineNumber = 0
    }

    /// Every remaining record; for small files and tests. Prefer ``next()`` for large files.
    ///
    /// - Throws: `CaptureFileError` if reading fails.
    public func readAll() throws(CaptureFileError) -> [CaptureRecord] {
        var records: [CaptureRecord] = []
        while let record = try next() { records.append(record) }
        return records
    }

    /// Reads the next chunk; false at the end of the file, or when a stream read without
    /// blocking has nothing yet.
    private func fill() throws(CaptureFileError) -> Bool {
        let count = chunk.withUnsafeMutableBytes { buffer -> Int in
            while true {
                let result = read(fd, buffer.baseAddress, buffer.count)
                if result < 0, errno == EINTR { continue }
                return result
            }
        }
        guard count >= 0 else {
            if errno == EAGAIN || errno == EWOULDBLOCK { return false }
            throw CaptureFileError(operation: "read", path: path, code: errno)
        }
        chunkStart = 0
        chunkEnd = count
        if count == 0, isStream { isAtEndOfStream = !waitsForWriter || writerHasGone() }
        return count > 0
    }

    /// Whether a FIFO that reads as ended had a writer that closed it (`POLLHUP`), rather than
    /// none yet (no event: Linux reports the hang-up only once a writer has come and gone).
    private func writerHasGone() -> Bool {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, 0) == 1 && poller.revents & Int16(POLLHUP) != 0
    }

    /// Consumes bytes up to and including the next newline in the chunk. Returns a record
    /// if that completed a good line; nil if the chunk ran out or the line was skipped.
    private func scanLine() -> CaptureRecord? {
        let (newline, record) = chunk.withUnsafeBufferPointer { buffer -> (Int?, CaptureRecord?) in
            let available = UnsafeBufferPointer(rebasing: buffer[chunkStart..<chunkEnd])
            guard let base = available.baseAddress,
                let found = memchr(base, Int32(UInt8(ascii: "\n")), available.count)
            else {
                appendToCarry(available)
                return (nil, nil)
            }
            let length = UnsafeRawPointer(found) - UnsafeRawPointer(base)
            let lineBytes = UnsafeBufferPointer(rebasing: available[0..<length])
            if carry.isEmpty, !skippingLongLine {
                if length > maximumLineLength { skippingLongLine = true }
                // The common case: the whole line is in this chunk, so decode it in place.
                return (length, finishLine(lineBytes))
            }
            appendToCarry(lineBytes)
            let record = carry.withUnsafeBufferPointer { finishLine($0) }
            carry.removeAll(keepingCapacity: carry.capacity <= Self.chunkSize)
            return (length, record)
        }
        guard let newline else {
            offset += UInt64(chunkEnd - chunkStart)
            chunkStart = chunkEnd
            return nil
        }
        offset += UInt64(newline + 1)
        chunkStart += newline + 1
        lineStart = offset
        return record
    }

    private func appendToCarry(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard !skippingLongLine else { return }
        if carry.count + bytes.count > maximumLineLength {
            skippingLongLine = true
            carry.removeAll()
            return
        }
        carry.append(contentsOf: bytes)
    }

    /// Decodes a complete line or records why it was skipped; settles a held malformed line
    /// by what this one is.
    private func finishLine(_ line: UnsafeBufferPointer<UInt8>) -> CaptureRecord? {
        let record = decodeLine(line)
        if var held = heldMalformed, held.lineNumber < lineNumber {
            heldMalformed = nil
            if record?.sequence == 1 {
                held.kind = .truncatedBeforeRestart
                held.message = "a line cut short, as a crash mid-write leaves it, before the mock restarted (\(held.message))"
            }
            skip(held)
        }
        return record
    }

    /// Reports the held malformed line as damage: no record follows it.
    private func releaseHeldMalformed() {
        guard let held = heldMalformed else { return }
        heldMalformed = nil
        skip(held)
    }

    private func decodeLine(_ line: UnsafeBufferPointer<UInt8>) -> CaptureRecord? {
        lineNumber += 1
        if skippingLongLine {
            skippingLongLine = false
            skipAfterHeld(CaptureReadWarning(
                kind: .lineTooLong, lineNumber: lineNumber, byteOffset: lineStart,
                message: "longer than \(maximumLineLength) bytes"))
            return nil
        }
        // Not a record, as the format says of any complete line that is not one (the newline
        // that ends the last line starts no line of its own, so a file's end is fine).
        if line.isEmpty || (line.count == 1 && line[0] == UInt8(ascii: "\r")) {
            skipAfterHeld(CaptureReadWarning(
                kind: .malformedLine, lineNumber: lineNumber, byteOffset: lineStart,
                message: "an empty line; the format holds one record per line"))
            return nil
        }
        do {
            return try CaptureRecordDecoder.decode(line)
        } catch {
            if error.kind == .otherKind {
                // Not a push and no damage (a delivery event): skipped without a warning.
                releaseHeldMalformed()
                otherKindLineCount += 1
                onOtherKindLine?(Array(line))
                return nil
            }
            let kind: CaptureReadWarning.Kind = switch error.kind {
            case .unsupportedVersion: .unsupportedVersion
            case .unsupportedKind: .unsupportedKind
            default: .malformedLine
            }
            let warning = CaptureReadWarning(kind: kind, lineNumber: lineNumber, byteOffset: lineStart, message: error.message)
            if warning.kind == .malformedLine, Self.isCutShort(line) {
                // Settled by the next line: a record with seq 1 makes it a restart's fragment.
                releaseHeldMalformed()
                heldMalformed = warning
            } else {
                skipAfterHeld(warning)
            }
            return nil
        }
    }

    /// Whether `line` is the start of a record cut short: an object that the end of the line
    /// interrupts, as a crash mid-write leaves one. A complete line that fails for another
    /// reason (a bad field, garbage) is damage, whatever follows it.
    static func isCutShort(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        guard line.first == UInt8(ascii: "{") else { return false }
        do {
            _ = try JSONParser.parse(line, maximumDepth: CaptureFormat.maximumLineDepth)
            return false
        } catch {
            return error.offset >= line.count
        }
    }

    /// Skips a line that settles a held malformed one as damage, reporting that one first.
    private func skipAfterHeld(_ warning: CaptureReadWarning) {
        releaseHeldMalformed()
        skip(warning)
    }

    private func skip(_ warning: CaptureReadWarning) {
        warningCount += 1
        if warnings.count < Self.keptWarnings { warnings.append(warning) }
        onWarning?(warning)
    }
}
