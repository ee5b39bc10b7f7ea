/// What ``CaptureStore/wait(for:count:timeout:)`` found, and why it stopped waiting.
public struct CaptureWaitResult: Sendable, Hashable {
    /// Why the wait ended.
    public enum Ending: Sendable, Hashable {
        /// At least the requested number of matching records exist.
        case satisfied
        /// The timeout passed first; `records` holds the matches there were.
        case timedOut
        /// The waiting task was cancelled; `records` holds the matches there were.
        case cancelled
    }

    /// Matching records captured since the last clear, in sequence order.
    public var records: [CaptureRecord]
    public var ending: Ending

    /// Creates a result.
    public init(records: [CaptureRecord], ending: Ending) {
        self.records = records
        self.ending = ending
    }

    /// True when the wait ended because enough records arrived.
    public var isSatisfied: Bool { ending == .satisfied }
}
