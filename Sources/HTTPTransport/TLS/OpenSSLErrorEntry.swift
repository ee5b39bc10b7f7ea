internal import COpenSSL

/// One entry of OpenSSL's thread-local error queue, copied out as a value.
public struct OpenSSLErrorEntry: Sendable, Equatable, CustomStringConvertible {
    /// OpenSSL's packed error code.
    public var code: UInt
    /// OpenSSL's text for the code, such as `error:0A000086:SSL routines::certificate verify failed`.
    public var text: String

    public var description: String { text }

    /// Empties the calling thread's error queue, so no later call reports a stale error.
    static func drainQueue() -> [OpenSSLErrorEntry] {
        var entries: [OpenSSLErrorEntry] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            let text = String(nulTerminated: buffer)
            entries.append(OpenSSLErrorEntry(code: code, text: text))
        }
        return entries
    }
}
