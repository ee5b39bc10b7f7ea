/// A per-device-token rate limit: at most `limit` pushes to one token within `window`;
/// further pushes in that window answer 429 `TooManyRequests`.
///
/// Only pushes let through count towards the limit, so a client that keeps sending while
/// limited is not locked out for ever: once older pushes leave the window, sends succeed again.
public struct FaultRateLimit: Sendable, Hashable {
    /// How the window moves.
    public enum Window: String, Sendable, Hashable, CaseIterable {
        /// The last `window` before each push: a push is limited when `limit` pushes to the
        /// token were let through in that span. Smooth, no bursts at window edges.
        case sliding
        /// Back-to-back windows per token: the first push to a token opens a window of
        /// length `window`; a push after it ends opens the next. Cheaper, and allows up to
        /// twice `limit` around a window edge, as fixed windows do.
        case fixed
    }

    /// Pushes let through per token per window; at least 1.
    public var limit: Int
    /// The length of the window; positive.
    public var window: Duration
    /// Sliding or fixed.
    public var kind: Window

    /// A rate limit of `limit` pushes per `window`, sliding unless told otherwise.
    public init(limit: Int, window: Duration, kind: Window = .sliding) {
        self.limit = limit
        self.window = window
        self.kind = kind
    }
}
