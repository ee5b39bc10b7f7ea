/// A token bucket's shape: up to `burst` requests at once, refilled at `perSecond`.
public struct GatewayRateLimit: Sendable, Hashable {
    /// Requests allowed back to back after a quiet period.
    public var burst: Int
    /// Sustained requests per second.
    public var perSecond: Double

    /// - Precondition: `burst >= 1` and `perSecond > 0`; the JSON and flag readers check
    ///   this with a clear error first.
    public init(burst: Int, perSecond: Double) {
        precondition(burst >= 1 && perSecond > 0, "a rate limit needs burst >= 1 and perSecond > 0")
        self.burst = burst
        self.perSecond = perSecond
    }

    /// Per device token: a burst of 10, then one push every 2 seconds. The plugin's own
    /// gates (dedup within 5 s, duration gate) keep a real device far below this.
    public static let defaultPerDevice = GatewayRateLimit(burst: 10, perSecond: 0.5)
    /// For the whole gateway, across devices.
    public static let defaultTotal = GatewayRateLimit(burst: 2_000, perSecond: 1_000)
    /// For `/register`, apart from the pushes: as much as ``defaultTotal``, because after the
    /// capability key is rotated every push is refused once and followed by a registration.
    public static let defaultRegister = GatewayRateLimit(burst: 2_000, perSecond: 1_000)
    /// For each client address, `/push` and `/register` together: half of ``defaultTotal``,
    /// so a client that floods leaves at least half of the gateway's rate to the others.
    public static let defaultPerSource = GatewayRateLimit(burst: 1_000, perSecond: 500)
}
