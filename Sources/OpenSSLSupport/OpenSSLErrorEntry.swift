internal import COpenSSL

/// One entry of OpenSSL's per-thread error queue, captured when an OpenSSL call failed.
///
/// Errors thrown by this library carry these entries so that a failure can be diagnosed
/// without re-running it; the queue itself is always emptied.
public struct OpenSSLErrorEntry: Sendable, Hashable, CustomStringConvertible {
    /// The packed OpenSSL error code (`ERR_get_error`).
    public let code: UInt
    /// The OpenSSL library that raised the error, for example `"elliptic curve routines"`.
    public let library: String
    /// OpenSSL's text for the reason, for example `"invalid encoding"`.
    public let reason: String
    /// The OpenSSL source file that raised the error.
    public let file: String
    /// The line in ``file``.
    public let line: Int

    /// A one-line summary for logs; never contains key material.
    public var description: String {
        "\(library): \(reason) (code \(code), \(file):\(line))"
    }
}
