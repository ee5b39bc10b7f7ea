/// How a set of captured pushes was answered (``CaptureStore/outcomeCounts(matching:)``).
public struct CaptureOutcomeCounts: Sendable, Hashable {
    /// One reason and status a push was rejected with, and how many pushes were.
    public struct ReasonCount: Sendable, Hashable {
        /// The APNs reason, as on the wire; nil when a fault rule reset the stream or closed
        /// the connection instead of answering (status 0).
        public var reason: String?
        /// The status answered.
        public var status: Int
        public var count: Int

        /// A count.
        public init(reason: String?, status: Int, count: Int) {
            self.reason = reason
            self.status = status
            self.count = count
        }
    }

    struct ReasonKey: Hashable {
        var reason: String?
        var status: Int
    }

    /// Pushes counted.
    public var total = 0
    /// Of them, answered 200.
    public var accepted = 0
    /// Of them, answered otherwise (``total`` − ``accepted``).
    public var rejected: Int { total - accepted }
    /// Of them, answered as a fault rule decided (accepted or not).
    public var injected = 0
    /// The rejections by reason and status, most frequent first (then by status and reason).
    public var reasons: [ReasonCount] = []

    /// No pushes.
    public init() {}
}
