/// Output that waits for the end of its loop's iteration: an answer produced while the loop
/// handles another socket's events (a gateway answering HTTP/1.1 requests from its APNs
/// connection's reads) is written together with the others of that iteration.
///
/// Writing each one at once costs a `send` that wakes the peer for every answer; written
/// together, the peers wake once for several and send their next requests together, which
/// the next iteration reads in one batch.
protocol DeferredFlushing: AnyObject {
    /// Writes what was queued. Runs on the loop, once per `flushAtEndOfIteration(_:)`.
    func flushDeferred()
}
