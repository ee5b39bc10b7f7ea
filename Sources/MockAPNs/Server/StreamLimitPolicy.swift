/// How many concurrent streams an APNs connection gets, and when, as APNs does it.
///
/// A token connection starts with one stream until a request carries a valid token; then
/// it gets `maxConcurrentStreams`. After a rejected push the limit drops to 1, and a
/// success restores it.
public struct StreamLimitPolicy: Sendable, Hashable {
    /// The limit once a connection is authenticated. APNs has been seen sending 1000.
    public var maxConcurrentStreams: Int
    /// Whether a rejected push lowers the limit to 1 until the next success.
    public var lowersAfterRejection: Bool

    public static let defaultMaxConcurrentStreams = 1000

    public init(maxConcurrentStreams: Int = defaultMaxConcurrentStreams, lowersAfterRejection: Bool = true) {
        self.maxConcurrentStreams = max(1, maxConcurrentStreams)
        self.lowersAfterRejection = lowersAfterRejection
    }

    /// Where a connection stands: whether it has been granted the configured limit, and
    /// whether a rejection has lowered it to 1 since.
    struct State: Sendable {
        /// Whether SETTINGS_MAX_CONCURRENT_STREAMS is currently 1 because the last push was
        /// rejected (APNs lowers it after an error and restores it after a success).
        var lowered = false
        /// Whether the connection has been granted the configured stream limit.
        var granted = false
    }

    /// The limit to announce after a push, or nil to leave it as it is.
    ///
    /// - Parameters:
    ///   - accepted: Whether the push was answered 200.
    ///   - authenticated: Whether the connection counts as authenticated now
    ///     (``PushDecision/connectionAuthenticated``).
    func newLimit(after accepted: Bool, authenticated: Bool, state: inout State) -> Int? {
        if !state.granted {
            guard authenticated else { return nil }
            state.granted = true
            if accepted || !lowersAfterRejection { return maxConcurrentStreams }
            state.lowered = true
            return nil  // Still 1: granted, but lowered by this very rejection.
        }
        if !accepted && lowersAfterRejection && !state.lowered {
            state.lowered = true
            return 1
        }
        if accepted && state.lowered {
            state.lowered = false
            return maxConcurrentStreams
        }
        return nil
    }
}
