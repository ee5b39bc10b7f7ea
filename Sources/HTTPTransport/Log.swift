internal import SystemSeam

/// Diagnostics the transport cannot return to a caller, written to standard error.
///
/// Writes go straight to fd 2 because Swift 6 forbids the C `stderr` global.
enum Log {
    static func error(_ message: String) {
        let line = "[HTTPTransport] \(message)\n"
        line.utf8CString.withUnsafeBufferPointer { buffer in
            _ = write(2, buffer.baseAddress, buffer.count - 1)
        }
    }
}
