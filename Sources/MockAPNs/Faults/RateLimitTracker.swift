import APNsCore

/// The pushes a rate-limit rule has let through, per device token. Owned by one rule and
/// only touched under the fault engine's lock.
struct RateLimitTracker {
    let limit: FaultRateLimit
    private let windowSeconds: Double
    /// Sliding windows: the times (seconds since 1970) of pushes let through, oldest first.
    private var recent: [DeviceToken: [Double]] = [:]
    /// Fixed windows: when each token's current window opened, and pushes let through in it.
    private var windows: [DeviceToken: (start: Double, count: Int)] = [:]
    /// Stale tokens are swept when this many are tracked, so random tokens cannot grow
    /// the tables without bound; it doubles with the live set to keep sweeps amortised.
    private var sweepThreshold = RateLimitTracker.minimumSweepThreshold

    private static let minimumSweepThreshold = 1024

    init(_ limit: FaultRateLimit) {
        self.limit = limit
        windowSeconds = Double(limit.window.components.seconds)
            + Double(limit.window.components.attoseconds) / 1e18
    }

    /// Whether one more push to `token` at `now` would exceed the limit.
    mutating func isOverLimit(_ token: DeviceToken, now: Double) -> Bool {
        switch limit.kind {
        case .sliding:
            guard var times = recent[token] else { return false }
            let cutoff = now - windowSeconds
            if let firstLive = times.firstIndex(where: { $0 > cutoff }) {
                if firstLive > 0 { times.removeFirst(firstLive) }
            } else {
                times.removeAll()
            }
            recent[token] = times
            return times.count >= limit.limit
        case .fixed:
            guard let window = windows[token], now < window.start + windowSeconds else { return false }
            return window.count >= limit.limit
        }
    }

    /// Counts a push to `token` that was let through.
    mutating func record(_ token: DeviceToken, now: Double) {
        switch limit.kind {
        case .sliding:
            recent[token, default: []].append(now)
        case .fixed:
            if let window = windows[token], now < window.start + windowSeconds {
                windows[token] = (window.start, window.count + 1)
            } else {
                windows[token] = (now, 1)
            }
        }
        sweepIfLarge(now: now)
    }

    /// Tokens tracked, for tests of the sweep.
    var trackedTokenCount: Int { recent.count + windows.count }

    private mutating func sweepIfLarge(now: Double) {
        guard recent.count + windows.count > sweepThreshold else { return }
        let cutoff = now - windowSeconds
        recent = recent.filter { $0.value.last.map { $0 > cutoff } ?? false }
        windows = windows.filter { $0.value.start > cutoff }
        sweepThreshold = max(Self.minimumSweepThreshold, 2 * (recent.count + windows.count))
    }
}
