/// Hears about every answered push; cannot change the answer.
///
/// The CLI's log line is one. The server's own capture is not an observer: with a capture
/// file the answer waits for its line, which an observer cannot hold back. As in pushy's
/// `MockApnsServerListener`, observation is kept apart from transport and from the decision.
public protocol PushObserver: Sendable {
    /// Called on the connection's event loop after the answer is decided, for every push
    /// (accepted or rejected). Keep it quick: it runs on the push path.
    ///
    /// - Parameters:
    ///   - faults: descriptions of the fault rules that fired for this push, if any.
    func pushAnswered(_ request: PushRequest, details: PushDetails, outcome: PushOutcome, faults: [String])
}
