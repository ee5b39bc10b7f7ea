import Synchronization

/// Token buckets per device token and for the whole gateway's pushes, and one for `/register`.
///
/// A push takes one token from its device's bucket and one from the total bucket; if
/// either is empty it is refused with 429 and takes nothing. A registration takes one from
/// the register bucket only: `/register` is open to anyone, so however many registrations
/// arrive, they never use up the budget of authorized pushes. Buckets of idle devices are
/// forgotten when the table grows past ``maximumTrackedDevices``, so memory stays bounded.
public final class GatewayRateLimiter: Sendable {
    /// Which limit refused a request.
    public enum Refusal: Sendable, Hashable {
        /// The push's device has used its budget.
        case device
        /// The gateway's pushes, across devices, have used theirs.
        case total
        /// `/register` has used its own budget.
        case register
    }

    /// Device buckets kept before idle ones are dropped.
    public static let maximumTrackedDevices = 100_000

    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    private struct State {
        var devices: [String: Bucket] = [:]
        var total: Bucket
        var register: Bucket
    }

    private let perDevice: GatewayRateLimit
    private let total: GatewayRateLimit
    private let register: GatewayRateLimit
    private let now: @Sendable () -> Double
    private let state: Mutex<State>

    /// - Parameters:
    ///   - perDevice: each device token's pushes.
    ///   - total: all pushes.
    ///   - register: all `/register` calls, apart from the pushes.
    ///   - now: a monotonic clock in seconds; tests inject one.
    public init(perDevice: GatewayRateLimit, total: GatewayRateLimit, register: GatewayRateLimit,
                now: @escaping @Sendable () -> Double = GatewayRateLimiter.monotonicSeconds) {
        self.perDevice = perDevice
        self.total = total
        self.register = register
        self.now = now
        let start = now()
        state = Mutex(State(total: Bucket(tokens: Double(total.burst), updated: start),
                            register: Bucket(tokens: Double(register.burst), updated: start)))
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
            if state.devices.count >= Self.maximumTrackedDevices, state.devices[device] == nil {
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
        }
        return max(1, Int((1 / rate).rounded(.up)))
    }

    private static func refilled(_ bucket: Bucket, limit: GatewayRateLimit, at time: Double) -> Bucket {
        let elapsed = max(0, time - bucket.updated)
        return Bucket(tokens: min(Double(limit.burst), bucket.tokens + elapsed * limit.perSecond), updated: time)
    }

    /// Drops buckets that have refilled completely: forgetting them changes nothing. If
    /// every device is busy, the oldest half goes (a flood of authorized devices, not a bypass).
    private static func forgetIdle(_ devices: inout [String: Bucket], limit: GatewayRateLimit, at time: Double) {
        devices = devices.filter { refilled($0.value, limit: limit, at: time).tokens < Double(limit.burst) }
        if devices.count >= maximumTrackedDevices {
            let cutoff = devices.values.map(\.updated).sorted()[devices.count / 2]
            devices = devices.filter { $0.value.updated > cutoff }
        }
    }

    private static let start = ContinuousClock.now

    /// Seconds on the continuous clock since the first use.
    @Sendable public static func monotonicSeconds() -> Double {
        let elapsed = start.duration(to: .now).components
        return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
    }
}
