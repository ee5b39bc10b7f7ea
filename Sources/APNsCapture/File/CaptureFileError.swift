internal import SystemSeam

/// A failed system call on a capture file: which call, on which path, and `errno`.
public struct CaptureFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The call that failed: `open`, `read`, `write`, `fsync`, `stat` or `seek`.
    public let operation: String
    public let path: String
    /// The `errno` it failed with.
    public let code: Int32

    /// Creates an error for `operation` on `path`.
    public init(operation: String, path: String, code: Int32) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    public var description: String {
        let reason = strerror(code).map { String(cString: $0) } ?? "error"
        return "cannot \(operation) \(path): \(reason) (errno \(code))"
    }
}
