import APNsCore

/// Hears about every answered push; cannot change the answer.
///
/// The CLI's log line is one. The server's own capture is not an observer: with a capture
/// file the answer waits for its line, which an observer cannot hold back. As in pushy's
/// `MockApnsServerListener`, observation is kept apart from transport and from the decision.
public protocol PushObserver: Sendable {
    /// Called on the connection's event loop for every push (accepted or rejected): as soon
    /// as the answer is decided, or, for an observer that ``waitsForFinalAnswer``, once it
    /// is final, just before it is sent: with a capture file, after the push's line is
    /// written, and with the 500 `InternalServerError` the push gets instead of what was
    /// decided when the line could not be written. Keep it quick: it runs on the push path.
    ///
    /// - Parameters:
    ///   - faults: descriptions of the fault rules that fired for this push, if any.
    func pushAnswered(_ request: PushRequest, details: PushDetails, outcome: PushOutcome, faults: [String])

    /// Called on the connection's event loop for an HTTP/1.x request to an APNs listener,
    /// which is answered 505 (APNs speaks HTTP/2 only) and is not a push. `method` and `path`
    /// are the client's, unchecked.
    func http1RequestRefused(environment: APNsEnvironment, connectionID: UInt64, method: String, path: String)

    /// Called on the connection's event loop for each answered request to a channel
    /// management listener, with what the capture file records of it.
    func channelRequestAnswered(_ operation: CaptureChannelOperation)

    /// Whether ``pushAnswered(_:details:outcome:faults:)`` waits for the final answer. An
    /// observer whose effects leave the mock (forwarding to a simulator) must; for the
    /// others, hearing the decision at once spares every push of a capture file the cost of
    /// holding its request until the write.
    var waitsForFinalAnswer: Bool { get }
}

extension PushObserver {
    /// Hears nothing of HTTP/1.x requests.
    public func http1RequestRefused(environment: APNsEnvironment, connectionID: UInt64, method: String, path: String) {}

    /// Hears nothing of channel management requests.
    public func channelRequestAnswered(_ operation: CaptureChannelOperation) {}

    /// Hears each push as soon as its answer is decided.
    public var waitsForFinalAnswer: Bool { false }
}
