import OpenSSLSupport
/// An OpenSSL operation failed for a reason that is not a verdict on the input, such as
/// memory exhaustion or a missing provider.
public struct CryptoError: Error, Sendable, CustomStringConvertible {
    /// The OpenSSL function that failed.
    public let operation: String
    /// What OpenSSL reported; the error queue was emptied into it.
    public let openSSLErrors: [OpenSSLErrorEntry]

    /// Records a failed call, draining the calling thread's OpenSSL error queue.
    init(_ operation: String) {
        self.operation = operation
        self.openSSLErrors = OpenSSLErrorQueue.drain()
    }

    /// The operation and OpenSSL's own explanation.
    public var message: String {
        let detail = openSSLErrors.map(\.description).joined(separator: "; ")
        return detail.isEmpty ? "\(operation) failed" : "\(operation) failed: \(detail)"
    }

    /// A one-line summary for logs; never contains key material.
    public var description: String { "CryptoError: \(message)" }
}
