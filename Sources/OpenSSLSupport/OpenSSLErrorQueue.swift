internal import COpenSSL

/// Access to the calling thread's OpenSSL error queue, for every module of this package.
package enum OpenSSLErrorQueue {
    /// Empties the queue and returns what it held, oldest first.
    package static func drain() -> [OpenSSLErrorEntry] {
        var entries: [OpenSSLErrorEntry] = []
        while true {
            var file: UnsafePointer<CChar>?
            var line: Int32 = 0
            let code = ERR_get_error_all(&file, &line, nil, nil, nil)
            if code == 0 { break }
            let library = ERR_lib_error_string(code).map { String(cString: $0) } ?? "library \(ERR_GET_LIB(code))"
            let reason = ERR_reason_error_string(code).map { String(cString: $0) } ?? "reason \(ERR_GET_REASON(code))"
            entries.append(
                OpenSSLErrorEntry(
                    code: UInt(code),
                    library: library,
                    reason: reason,
                    file: file.map { String(cString: $0) } ?? "?",
                    line: Int(line)
                )
            )
        }
        return entries
    }

    /// Discards the queue's content, for paths where a failure is an expected answer
    /// (a signature that does not verify) rather than an error to report.
    package static func clear() {
        ERR_clear_error()
    }

    /// Whether the queue holds nothing; tests use this to prove failures leave no residue.
    package static var isEmpty: Bool {
        ERR_peek_error() == 0
    }
}
