import APNsCore
import HTTPTransport
import Synchronization

/// The gateway's counters, rendered for Prometheus at `/metrics`: requests by endpoint and
/// outcome, APNs answers by reason, and a latency histogram of `/push`.
public final class GatewayMetrics: Sendable {
    /// Upper bounds of the `/push` latency histogram's buckets, in seconds.
    public static let latencyBuckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    private struct RequestKey: Hashable {
        var endpoint: String
        var outcome: String
    }

    private struct Counts {
        var requests: [RequestKey: Int] = [:]
        /// By APNs reason wire value; `""` for accepted, `unreachable` when none came.
        var apns: [String: Int] = [:]
        var latency = LatencyHistogram(bounds: GatewayMetrics.latencyBuckets)
    }

    private let counts = Mutex(Counts())

    public init() {}

    /// Counts one answered request: `outcome` is `ok` or the error code.
    public func recordRequest(endpoint: String, outcome: String) {
        counts.withLock { $0.requests[RequestKey(endpoint: endpoint, outcome: outcome), default: 0] += 1 }
    }

    /// Counts one APNs result and how long the whole `/push` took.
    public func recordAPNs(_ result: APNsDeliveryResult, latency: Duration) {
        let label: String
        switch result {
        case .accepted: label = ""
        case .rejected(_, let reason, _): label = reason.wireValue
        case .unreachable: label = "unreachable"
        }
        counts.withLock { counts in
            counts.apns[label, default: 0] += 1
            counts.latency.record(latency)
        }
    }

    /// Requests so far to `endpoint` that ended in `outcome`.
    public func requests(endpoint: String, outcome: String) -> Int {
        counts.withLock { $0.requests[RequestKey(endpoint: endpoint, outcome: outcome)] ?? 0 }
    }

    /// The Prometheus text exposition (version 0.0.4).
    public func prometheusText() -> String {
        let snapshot = counts.withLock { $0 }
        var text = "# HELP push_gateway_requests_total Requests answered, by endpoint and outcome (ok or the error code).\n"
        text += "# TYPE push_gateway_requests_total counter\n"
        for (key, count) in snapshot.requests.sorted(by: { ($0.key.endpoint, $0.key.outcome) < ($1.key.endpoint, $1.key.outcome) }) {
            text += "push_gateway_requests_total{endpoint=\"\(key.endpoint)\",outcome=\"\(key.outcome)\"} \(count)\n"
        }
        text += "# HELP push_gateway_apns_responses_total Final APNs answers, by reason (empty when accepted).\n"
        text += "# TYPE push_gateway_apns_responses_total counter\n"
        for (reason, count) in snapshot.apns.sorted(by: { $0.key < $1.key }) {
            let outcome = reason.isEmpty ? "accepted" : reason == "unreachable" ? "unreachable" : "rejected"
            text += "push_gateway_apns_responses_total{outcome=\"\(outcome)\",reason=\"\(Self.escaped(reason))\"} \(count)\n"
        }
        text += snapshot.latency.prometheusText(
            name: "push_gateway_push_duration_seconds", help: "Time from a /push request to its answer, APNs included.")
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
