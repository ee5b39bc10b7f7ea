/// The protocol half of a server connection: HTTP/2 or HTTP/1.1. Loop-confined.
protocol ServerSession: ConnectionController {
    /// Bytes from the peer. Output is queued on the byte stream, which flushes after.
    func receive(_ bytes: UnsafeRawBufferPointer)
    /// The write buffer emptied: HTTP/1.1 goes on with pipelined requests, HTTP/2 with the
    /// output it held back while the peer was behind.
    func didDrain()
    /// Requests or streams begun and not finished.
    var hasOpenStreams: Bool { get }
    /// The earliest moment a request still arriving runs out of time: while its header block
    /// arrives, `requestHeadersTimeout` after its first byte; in any case `requestReadTimeout`
    /// after it. Nil when no request is arriving; requests read whole and waiting for the
    /// handler do not count.
    var nextRequestDeadline: ContinuousClock.Instant? { get }
    /// Answers 408 to every request still arriving whose deadline is at or before `now`,
    /// counts them, and stops reading them (HTTP/1.1 closes; HTTP/2 resets those streams and
    /// sends GOAWAY).
    func expireRequests(dueBy now: ContinuousClock.Instant)
    /// HTTP/2: true until the client's connection preface and first SETTINGS frame are in.
    var awaitsClientPreface: Bool { get }
    /// Stop taking new requests, finish those in flight, then close.
    func beginGracefulShutdown()
    /// The shutdown's grace period is over: answers every request not yet answered with the
    /// handler's answer to `HTTPRequestRejection.shuttingDown`.
    func refuseUnansweredRequests()
    /// The connection closed; release every stream.
    func connectionDidClose()
    /// No request has been open since the connection's last timer check: caches kept for the
    /// next request can go.
    func connectionWentQuiet()
}

extension ServerSession {
    func connectionWentQuiet() {}
}
