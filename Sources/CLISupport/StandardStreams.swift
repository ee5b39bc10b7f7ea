import Foundation

/// Writes to standard output and standard error with `write(2)`, reporting a failure instead
/// of trapping as `FileHandle.write` does (a full disk, a closed terminal): a CLI must turn a
/// lost report into an error, and must not crash because its error could not be printed.
public enum StandardStreams {
    /// Standard output's file descriptor.
    public static let output: Int32 = 1
    /// Standard error's file descriptor.
    public static let error: Int32 = 2

    /// Writes all of `bytes` to `fd` (any descriptor, not only these two), retrying short
    /// and interrupted writes.
    ///
    /// - Returns: the `errno` of a failed write, or nil when every byte was written.
    @discardableResult
    public static func write(_ bytes: some Collection<UInt8>, to fd: Int32) -> Int32? {
        // In place when contiguous (an array, the common case); copied once otherwise. The
        // outer optional says whether storage was contiguous, the inner one is the result.
        bytes.withContiguousStorageIfAvailable { writeAll(UnsafeRawBufferPointer($0), to: fd) }
            ?? Array(bytes).withUnsafeBytes { writeAll($0, to: fd) }
    }

    private static func writeAll(_ buffer: UnsafeRawBufferPointer, to fd: Int32) -> Int32? {
        guard let base = buffer.baseAddress else { return nil }
        var offset = 0
        while offset < buffer.count {
            let written = Foundation.write(fd, base + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            // write(2) returns 0 only for a zero-byte request; guard against looping for ever.
            if written == 0 { return EIO }
            offset += written
        }
        return nil
    }

    /// Writes `text` to `fd` as UTF-8; the `errno` of a failed write, or nil.
    @discardableResult
    public static func write(_ text: String, to fd: Int32) -> Int32? {
        write(Array(text.utf8), to: fd)
    }

    /// Writes `text` to standard output, where a command's result goes.
    ///
    /// - Parameter what: names the output in the error (`the result`).
    /// - Throws: ``OutputWriteError`` when a write fails.
    public static func writeOutput(_ text: String, naming what: String) throws(OutputWriteError) {
        if let code = write(text, to: Self.output) { throw OutputWriteError(what, code: code) }
    }

    /// Writes `text` to standard output or, when it cannot, says so on standard error
    /// (`Error: cannot write … to standard output: <reason>`).
    ///
    /// - Parameter what: names the output in the message (`the help`).
    /// - Returns: whether `text` was written. When not, the caller fails the command: output
    ///   that was lost must not look as if it arrived.
    public static func writeOutputOrReport(_ text: String, naming what: String) -> Bool {
        do {
            try writeOutput(text, naming: what)
            return true
        } catch {
            printError("\(error)")
            return false
        }
    }

    /// Writes `Error: message` and a newline to standard error. A failed write is dropped:
    /// there is nowhere else to report it, and the exit status still says the command failed.
    public static func printError(_ message: String) {
        write("Error: \(message)\n", to: Self.error)
    }
}
