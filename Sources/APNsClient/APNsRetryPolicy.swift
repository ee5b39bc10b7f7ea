/// When and how often an `APNsClient` sends a push again.
///
/// Only what Apple allows is retried: 5xx answers, 429 `TooManyRequests`, and a connection
/// lost (or told to go away) before the answer came. Every other rejection is final. The
/// retry carries the same `apns-id`, so a receiver can tell a duplicate.
///
/// Waits grow exponentially with "equal jitter": attempt *n* waits a random time between
/// half and all of `min(maximumBackoff, initialBackoff × multiplier^(n-1))`.
///
/// ```swift
/// var policy = APNsRetryPolicy.default
/// policy.maximumAttempts = 5
/// ```
public struct APNsRetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included; 1 turns retries off.
    public var maximumAttempts: Int
    /// The wait before the first retry, before jitter.
    public var initialBackoff: Duration
    /// The longest wait between attempts, before jitter.
    public var maximumBackoff: Duration
    /// How much each wait grows over the previous one.
    public var multiplier: Double

    /// 3 attempts, 100 ms then 200 ms (jittered), at most 5 s, doubling.
    public static let `default` = APNsRetryPolicy(
        maximumAttempts: 3, initialBackoff: .milliseconds(100), maximumBackoff: .seconds(5), multiplier: 2)
    /// A single attempt.
    public static let none = APNsRetryPolicy(
        maximumAttempts: 1, initialBackoff: .zero, maximumBackoff: .zero, multiplier: 1)

    /// A policy; see the type's documentation for how the waits are computed.
    public init(maximumAttempts: Int, initialBackoff: Duration, maximumBackoff: Duration, multiplier: Double) {
        self.maximumAttempts = maximumAttempts
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
        self.multiplier = multiplier
    }

    /// The jittered wait after failed attempt `attempt` (1-based).
    public func backoff(afterAttempt attempt: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        let base = Double(initialBackoff.components.seconds) + Double(initialBackoff.components.attoseconds) / 1e18
        let cap = Double(maximumBackoff.components.seconds) + Double(maximumBackoff.components.attoseconds) / 1e18
        let exponent = Double(max(0, attempt - 1))
        let full = min(cap, base * power(multiplier, exponent))
        guard full > 0 else { return .zero }
        let seconds = Double.random(in: (full / 2)...full, using: &generator)
        // A cap past what Int64 nanoseconds hold (about 292 years) stands for "as long as allowed".
        guard seconds * 1e9 < 9.2e18 else { return maximumBackoff }
        return .nanoseconds(Int64(seconds * 1e9))
    }

    func validate() throws(APNsClientError) {
        guard maximumAttempts >= 1 else {
            throw .invalidConfiguration("retryPolicy.maximumAttempts must be at least 1, found \(maximumAttempts)")
        }
        guard initialBackoff >= .zero, maximumBackoff >= initialBackoff else {
            throw .invalidConfiguration("retryPolicy backoffs must satisfy 0 <= initialBackoff <= maximumBackoff")
        }
        guard multiplier >= 1, multiplier.isFinite else {
            throw .invalidConfiguration("retryPolicy.multiplier must be a finite number of at least 1, found \(multiplier)")
        }
    }
}

/// `base^exponent` for small whole exponents, without Foundation's `pow`.
private func power(_ base: Double, _ exponent: Double) -> Double {
    var result = 1.0
    var remaining = Int(min(exponent, 64))
    while remaining > 0 {
        result *= base
        remaining -= 1
        if result > 1e12 { break }
    }
    return result
}
