import APNsCore
import HTTPTransport
import HermesContract
import Synchronization

/// The gateway's counters, rendered for Prometheus at `/metrics`: requests by endpoint and
/// outcome, 429s by the limit that refused them, connections refused at accept, APNs
/// answers by reason, and latency histograms of `/push` and of its APNs leg.
public final class GatewayMetrics: Sendable {
    /// Upper bounds of the latency histograms' buckets, in seconds.
    public static let latencyBuckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    /// An endpoint (nil: no such route) and an outcome (nil: ok): enums, so that counting a
    /// push hashes two small integers, not two strings.
    private struct RequestKey: Hashable {
        var route: GatewayRoute?
        var code: HermesGatewayErrorCode?

        var endpoint: String { route?.name ?? "other" }
        var outcome: String { code?.rawValue ?? "ok" }
    }

    private struct Counts {
        var requests: [RequestKey: Int] = [:]
        var rateLimited: [GatewayRateLimiter.Refusal: Int] = [:]
        var accepted = 0
        var unreachable = 0
        /// By APNs reason wire value.
        var rejected: [String: Int] = [:]
        var latency = LatencyHistogram(bounds: GatewayMetrics.latencyBuckets)
        var apnsLatency = LatencyHistogram(bounds: GatewayMetrics.latencyBuckets)

        mutating func count(_ result: APNsDeliveryResult) {
            switch result {
            case .accepted: accepted += 1
            case .rejected(_, let reason, _): rejected[reason.wireValue, default: 0] += 1
            case .unreachable: unreachable += 1
            }
        }

        /// APNs answers by label: `""` for accepted, `unreachable` when none came, else the reason.
        var apns: [String: Int] {
            var byLabel = rejected
            if accepted > 0 { byLabel["", default: 0] += accepted }
            if unreachable > 0 { byLabel["unreachable", default: 0] += unreachable }
            return byLabel
        }
    }

    private let counts = Mutex(Counts())
    /// The listener's counters, once it runs: connections refused at accept are counted there.
    private let transport = Mutex<(@Sendable () -> TransportMetrics?)?>(nil)

    public init() {}

    /// Reads the listener's connection counters from `metrics` for each `/metrics`; nil
    /// from it (the listener gone) shows nothing.
    func attachTransport(_ metrics: @escaping @Sendable () -> TransportMetrics?) {
        transport.withLock { $0 = metrics }
    }

    /// Counts one request refused 429 by the gateway's own `limit`.
    func recordRateLimited(_ limit: GatewayRateLimiter.Refusal) {
        counts.withLock { $0.rateLimited[limit, default: 0] += 1 }
    }

    /// Requests refused so far by `limit`.
    public func rateLimited(by limit: GatewayRateLimiter.Refusal) -> Int {
        counts.withLock { $0.rateLimited[limit, default: 0] }
    }

    /// Counts one answered request to `route` (nil: no such endpoint); `code` nil is ok.
    func recordRequest(_ route: GatewayRoute?, code: HermesGatewayErrorCode?) {
        counts.withLock { $0.requests[RequestKey(route: route, code: code), default: 0] += 1 }
    }

    /// Counts one answered `/push` that reached APNs: the request, APNs' result, how long the
    /// whole push took and how long APNs took of that, under one lock.
    func recordPush(_ result: APNsDeliveryResult, code: HermesGatewayErrorCode?, latency: Duration, apnsLatency: Duration) {
        counts.withLock { counts in
            counts.requests[RequestKey(route: .push, code: code), default: 0] += 1
            counts.count(result)
            counts.latency.record(latency)
            counts.apnsLatency.record(apnsLatency)
        }
    }

    /// Requests so far to `endpoint` that ended in `outcome`.
    public func requests(endpoint: String, outcome: String) -> Int {
        counts.withLock { counts in
            counts.requests.reduce(0) { $0 + ($1.key.endpoint == endpoint && $1.key.outcome == outcome ? $1.value : 0) }
        }
    }

    /// The Prometheus text exposition (version 0.0.4).
    public func prometheusText() -> String {
        let snapshot = counts.withLock { $0 }
        var text = "# HELP push_gateway_requests_total Requests answered, by endpoint and outcome (ok or the error code).\n"
        text += "# TYPE push_gateway_requests_total counter\n"
        for (key, count) in snapshot.requests.sorted(by: { ($0.key.endpoint, $0.key.outcome) < ($1.key.endpoint, $1.key.outcome) }) {
            text += "push_gateway_requests_total{endpoint=\"\(key.endpoint)\",outcome=\"\(key.outcome)\"} \(count)\n"
        }
        text += "# HELP push_gateway_rate_limited_total Requests refused 429 by the gateway, by the limit that refused them.\n"
        text += "# TYPE push_gateway_rate_limited_total counter\n"
        for (limit, count) in snapshot.rateLimited.sorted(by: { $0.key.name < $1.key.name }) {
            text += "push_gateway_rate_limited_total{limit=\"\(limit.name)\"} \(count)\n"
        }
        if let listener = transport.withLock({ $0 })?() {
            text += "# HELP push_gateway_connections_refused_total Connections closed at accept: over max_connections (or shutting down), or over max_connections_per_source.\n"
            text += "# TYPE push_gateway_connections_refused_total counter\n"
            text += "push_gateway_connections_refused_total{limit=\"source\"} \(listener.rejectedSourceConnections)\n"
            text += "push_gateway_connections_refused_total{limit=\"total\"} \(listener.rejectedConnections - listener.rejectedSourceConnections)\n"
        }
        text += "# HELP push_gateway_apns_responses_total Final APNs answers, by reason (empty when accepted).\n"
        text += "# TYPE push_gateway_apns_responses_total counter\n"
        for (reason, count) in snapshot.apns.sorted(by: { $0.key < $1.key }) {
            let outcome = reason.isEmpty ? "accepted" : reason == "unreachable" ? "unreachable" : "rejected"
            text += "push_gateway_apns_responses_total{outcome=\"\(outcome)\",reason=\"\(Self.escaped(reason))\"} \(count)\n"
        }
        text += snapshot.latency.prometheusText(
            name: "push_gateway_push_duration_seconds", help: "Time from a /push request to its answer, APNs included.")
        text += snapshot.apnsLatency.prometheusText(
            name: "push_gateway_apns_duration_seconds",
            help: "Time APNs took per /push, from the hand-off to the APNs client to the final answer, retries included.")
        return text
    }

    /// Unknown reasons come from the network: keep label values well-formed.
    private static func escaped(_ value: String) -> String {
        var result = ""
        for character in value.prefix(64) {
            switch character {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result += "\\n"
            default: result.append(character)
            }
        }
        return result
    }
}
