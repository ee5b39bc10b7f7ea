import HTTPTransport
import Synchronization

/// Token buckets per client address, per device token and for the whole gateway's pushes,
/// and one for `/register`.
///
/// Every request first takes a token from its client's bucket (``admit(source:)``), before
/// it is parsed or authorized, so one address that floods, signed or not, is refused on its
/// own and leaves the shared buckets to the others. A push then takes one token from its
/// device's bucket and one from the total bucket; if either is empty it is refused with 429
/// and takes nothing. A registration takes one from the register bucket only: `/register`
/// is open to anyone, so however many registrations arrive, they never use up the budget of
/// authorized pushes. Buckets of idle devices and sources are forgotten when a table grows
/// past ``maximumTrackedKeys``, so memory stays bounded.
public final class GatewayRateLimiter: Sendable {
    /// Which limit refused a request.
    public enum Refusal: Sendable, Hashable {
        /// The push's device has used its budget.
        case device
        /// The gateway's pushes, across devices, have used theirs.
        case total
        /// `/register` has used its own budget.
        case register
        /// The request's client address has used its budget.
        case source

        /// The name in logs (`gateway.limit`) and in `/metrics`.
        public var name: String {
            switch self {
            case .device: "device"
            case .total: "total"
            case .register: "register"
            case .source: "source"
            }
        }
    }

    /// Device buckets, and source buckets, kept before idle ones are dropped.
    public static let maximumTrackedKeys = 100_000

    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    private struct State {
        var devices: [String: Bucket] = [:]
        var sources: [ClientSource: Bucket] = [:]
        var total: Bucket
        var register: Bucket
    }

    private let perDevice: GatewayRateLimit
    private let total: GatewayRateLimit
    private let register: GatewayRateLimit
    private let perSource: GatewayRateLimit
    private let now: @Sendable () -> Double
    private let state: Mutex<State>

    /// - Parameters:
    ///   - perDevice: each device token's pushes.
    ///   - total: all pushes.
    ///   - register: all `/register` calls, apart from the pushes.
    ///   - perSource: each client address's requests, of both endpoints.
    ///   - now: a monotonic clock in seconds; tests inject one.
    public init(perDevice: GatewayRateLimit, total: GatewayRateLimit, register: GatewayRateLimit,
                perSource: GatewayRateLimit = .defaultPerSource,
                now: @escaping @Sendable () -> Double = GatewayRateLimiter.monotonicSeconds) {
        self.perDevice = perDevice
        self.total = total
        self.register = register
        self.perSource = perSource
        self.now = now
        let start = now()
        state = Mutex(State(total: Bucket(tokens: Double(total.burst), updated: start),
                            register: Bucket(tokens: Double(register.burst), updated: start)))
    }

    /// Takes a token from `source`'s bucket; nil when admitted, else ``Refusal/source``.
    public func admit(source: ClientSource) -> Refusal? {
        let time = now()
        return state.withLock { state in
            var bucket = state.sources[source].map { Self.refilled($0, limit: perSource, at: time) }
                ?? Bucket(tokens: Double(perSource.burst), updated: time)
            guard bucket.tokens >= 1 else {
                state.sources[source] = bucket
                return .source
            }
            bucket.tokens -= 1
            if state.sources.count >= Self.maximumTrackedKeys, state.sources[source] == nil {
                Self.forgetIdle(&state.sources, limit: perSource, at: time)
            }
            state.sources[source] = bucket
            return nil
        }
    }

    /// Takes a token for `device` (lowercase hex) and one from the total; nil when admitted.
    public func admit(device: String) -> Refusal? {
        let time = now()
        return state.withLock { state in
            var totalBucket = Self.refilled(state.total, limit: total, at: time)
            var deviceBucket = state.devices[device].map { Self.refilled($0, limit: perDevice, at: time) }
                ?? Bucket(tokens: Double(perDevice.burst), updated: time)
            defer { state.total = totalBucket }
            guard deviceBucket.tokens >= 1 else {
                state.devices[device] = deviceBucket
                return .device
            }
            guard totalBucket.tokens >= 1 else { return .total }
            deviceBucket.tokens -= 1
            totalBucket.tokens -= 1
            if state.devices.count >= Self.maximumTrackedKeys, state.devices[device] == nil {
                Self.forgetIdle(&state.devices, limit: perDevice, at: time)
            }
            state.devices[device] = deviceBucket
            return nil
        }
    }

    /// Takes one token from the register bucket, and none from the pushes' (for
    /// `/register`); nil when admitted, else ``Refusal/register``.
    public func admitRegistration() -> Refusal? {
        let time = now()
        return state.withLock { state in
            var bucket = Self.refilled(state.register, limit: register, at: time)
            defer { state.register = bucket }
            guard bucket.tokens >= 1 else { return .register }
            bucket.tokens -= 1
            return nil
        }
    }

    /// Seconds until `limit` has a token again after a refusal, rounded up: `retry-after`.
    public func retryAfterSeconds(for refusal: Refusal) -> Int {
        let rate = switch refusal {
        case .device: perDevice.perSecond
        case .total: total.perSecond
        case .register: register.perSecond
        case .source: perSource.perSecond
        }
        return max(1, Int((1 / rate).rounded(.up)))
    }

    private static func refilled(_ bucket: Bucket, limit: GatewayRateLimit, at time: Double) -> Bucket {
        let elapsed = max(0, time - bucket.updated)
        return Bucket(tokens: min(Double(limit.burst), bucket.tokens + elapsed * limit.perSecond), updated: time)
    }

    /// Drops buckets that have refilled completely: forgetting them changes nothing. If
    /// every key is busy, the oldest half goes (a flood of authorized devices or of addresses,
    /// not a bypass: a forgotten bucket starts full, as a new one would).
    private static func forgetIdle<Key: Hashable>(_ buckets: inout [Key: Bucket], limit: GatewayRateLimit, at time: Double) {
        buckets = buckets.filter { refilled($0.value, limit: limit, at: time).tokens < Double(limit.burst) }
        if buckets.count >= maximumTrackedKeys {
            let cutoff = buckets.values.map(\.updated).sorted()[buckets.count / 2]
            buckets = buckets.filter { $0.value.updated > cutoff }
        }
    }

    private static let start = ContinuousClock.now

    /// Seconds on the continuous clock since the first use.
    @Sendable public static func monotonicSeconds() -> Double {
        let elapsed = start.duration(to: .now).components
        return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
    }
}
