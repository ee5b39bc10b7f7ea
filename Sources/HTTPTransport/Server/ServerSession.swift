/// The protocol half of a server connection: HTTP/2 or HTTP/1.1. Loop-confined.
protocol ServerSession: ConnectionController {
    /// Bytes from the peer. Output is queued on the byte stream, which flushes after.
    func receive(_ bytes: UnsafeRawBufferPointer)
    /// The write buffer emptied: HTTP/1.1 goes on with pipelined requests, HTTP/2 with the
    /// output it held back while the peer was behind.
    func didDrain()
    /// Requests or streams begun and not finished.
    var hasOpenStreams: Bool { get }
    /// When the request that has been arriving longest began (its first byte), among those
    /// not yet read whole; nil when none is. Requests read whole and waiting for the handler
    /// do not count.
    var oldestIncompleteRequestStart: ContinuousClock.Instant? { get }
    /// Answers 408 to every request still arriving that began at or before `cutoff`, counts
    /// them, and stops reading them (HTTP/1.1 closes; HTTP/2 resets those streams and sends GOAWAY).
    func expireIncompleteRequests(startedBy cutoff: ContinuousClock.Instant)
    /// Stop taking new requests, finish those in flight, then close.
    func beginGracefulShutdown()
    /// The connection closed; release every stream.
    func connectionDidClose()
}
