/// The protocol half of a server connection: HTTP/2 or HTTP/1.1. Loop-confined.
protocol ServerSession: ConnectionController {
    /// Bytes from the peer. Output is queued on the byte stream, which flushes after.
    func receive(_ bytes: UnsafeRawBufferPointer)
    /// The write buffer emptied; HTTP/1.1 uses this to go on with pipelined requests.
    func didDrain()
    /// Requests or streams begun and not finished.
    var hasOpenStreams: Bool { get }
    /// Stop taking new requests, finish those in flight, then close.
    func beginGracefulShutdown()
    /// The connection closed; release every stream.
    func connectionDidClose()
}
