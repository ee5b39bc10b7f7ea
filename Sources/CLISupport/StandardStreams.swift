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
}
