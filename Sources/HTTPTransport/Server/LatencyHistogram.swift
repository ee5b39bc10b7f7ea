/// A latency histogram in Prometheus' shape: fixed bucket bounds, a count and a sum.
///
/// A value: keep it beside the other counters under the lock that guards them, so one
/// lock per request covers all of a server's metrics.
///
/// ```swift
/// var latency = LatencyHistogram(bounds: [0.001, 0.01, 0.1])
/// latency.record(.milliseconds(3))
/// text += latency.prometheusText(name: "push_latency_seconds", help: "Time to answer a push.")
/// ```
public struct LatencyHistogram: Sendable, Hashable {
    /// Upper bounds of the buckets, in seconds, ascending.
    public let bounds: [Double]
    /// Observations per bucket (not cumulative); one past the last bound counts in none.
    public private(set) var buckets: [Int]
    /// Observations so far.
    public private(set) var count = 0
    /// Their sum, in seconds.
    public private(set) var sum = 0.0

    /// An empty histogram with `bounds` (seconds, ascending).
    public init(bounds: [Double]) {
        self.bounds = bounds
        buckets = [Int](repeating: 0, count: bounds.count)
    }

    /// Counts one observation.
    public mutating func record(_ duration: Duration) {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        if let bucket = bounds.firstIndex(where: { seconds <= $0 }) { buckets[bucket] += 1 }
        count += 1
        sum += seconds
    }

    /// The histogram in the text exposition format (version 0.0.4), `HELP` and `TYPE` first.
    public func prometheusText(name: String, help: String) -> String {
        var text = "# HELP \(name) \(help)\n# TYPE \(name) histogram\n"
        var cumulative = 0
        for (index, bound) in bounds.enumerated() {
            cumulative += buckets[index]
            text += "\(name)_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        text += "\(name)_bucket{le=\"+Inf\"} \(count)\n"
        text += "\(name)_sum \(sum)\n"
        text += "\(name)_count \(count)\n"
        return text
    }
}
