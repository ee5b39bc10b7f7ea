import APNsCore
import HTTPTransport
import JWTVerify
import Synchronization

/// Counters and a latency histogram for the mock, rendered in Prometheus' text format.
///
/// One uncontended lock per push: `Atomic` cannot live in arrays, and a per-reason table
/// is what keeps the exposition complete without a dictionary per push.
public final class PushMetrics: Sendable {
    /// Upper bounds of the latency histogram's buckets, in seconds.
    public static let latencyBuckets: [Double] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 0.5, 1, 5]

    private static let reasons = APNsReason.allKnown
    private static let environments = APNsEnvironment.allCases

    private struct Counts {
        /// [environment][0 = accepted, 1... = rejected by known reason index + 1, then unknown
        /// reason, then unanswered (a fault reset the stream or closed the connection)]
        var outcomes = PushMetrics.environments.map { _ in [Int](repeating: 0, count: PushMetrics.reasons.count + 3) }
        var latency = LatencyHistogram(bounds: PushMetrics.latencyBuckets)
        var openConnections = 0
        var acceptedConnections = 0
        /// [environment]: HTTP/1.x requests answered 505.
        var http1Requests = PushMetrics.environments.map { _ in 0 }
    }

    private let counts = Mutex(Counts())

    public init() {}

    /// Counts one push and how long the mock took to answer it.
    ///
    /// - Parameters:
    ///   - reason: the rejection's reason; nil for an accepted push, or one not answered.
    ///   - answered: false when a fault rule reset the stream or closed the connection
    ///     instead of answering: counted as rejected with no reason, as the capture has it.
    public func recordPush(environment: APNsEnvironment, reason: APNsReason?, answered: Bool = true, latency: Duration) {
        let row = Self.environments.firstIndex(of: environment) ?? 0
        let column = answered ? reason.map { (Self.reasons.firstIndex(of: $0) ?? Self.reasons.count) + 1 } ?? 0 : Self.reasons.count + 2
        counts.withLock { counts in
            counts.outcomes[row][column] += 1
            counts.latency.record(latency)
        }
    }

    /// Counts one HTTP/1.x request refused on an APNs listener.
    public func recordHTTP1Request(environment: APNsEnvironment) {
        let row = Self.environments.firstIndex(of: environment) ?? 0
        counts.withLock { $0.http1Requests[row] += 1 }
    }

    /// HTTP/1.x requests refused so far, over both environments.
    public var http1Requests: Int {
        counts.withLock { $0.http1Requests.reduce(0, +) }
    }

    public func connectionOpened() {
        counts.withLock {
            $0.openConnections += 1
            $0.acceptedConnections += 1
        }
    }

    public func connectionClosed() {
        counts.withLock { $0.openConnections -= 1 }
    }

    /// Accepted pushes so far, over both environments.
    public var acceptedPushes: Int {
        counts.withLock { $0.outcomes.reduce(0) { $0 + $1[0] } }
    }

    /// Rejected pushes so far with `reason`, over both environments.
    public func rejectedPushes(_ reason: APNsReason) -> Int {
        let column = (Self.reasons.firstIndex(of: reason) ?? Self.reasons.count) + 1
        return counts.withLock { $0.outcomes.reduce(0) { $0 + $1[column] } }
    }

    /// The Prometheus text exposition (version 0.0.4) of every metric.
    public func prometheusText() -> String {
        let snapshot = counts.withLock { $0 }
        var text = "# HELP apns_mock_pushes_total Pushes answered, by environment, outcome and reason.\n"
        text += "# TYPE apns_mock_pushes_total counter\n"
        for (environmentIndex, environment) in Self.environments.enumerated() {
            let row = snapshot.outcomes[environmentIndex]
            let labels = "environment=\"\(environment.rawValue)\""
            text += "apns_mock_pushes_total{\(labels),outcome=\"accepted\",reason=\"\"} \(row[0])\n"
            for (index, reason) in Self.reasons.enumerated() where row[index + 1] > 0 {
                text += "apns_mock_pushes_total{\(labels),outcome=\"rejected\",reason=\"\(reason.wireValue)\"} \(row[index + 1])\n"
            }
            if row[Self.reasons.count + 1] > 0 {
                text += "apns_mock_pushes_total{\(labels),outcome=\"rejected\",reason=\"other\"} \(row[Self.reasons.count + 1])\n"
            }
            if row[Self.reasons.count + 2] > 0 {
                text += "apns_mock_pushes_total{\(labels),outcome=\"rejected\",reason=\"\"} \(row[Self.reasons.count + 2])\n"
            }
        }
        text += "# HELP apns_mock_http1_requests_total HTTP/1.x requests answered 505: APNs speaks HTTP/2 only.\n"
        text += "# TYPE apns_mock_http1_requests_total counter\n"
        for (environmentIndex, environment) in Self.environments.enumerated() {
            text += "apns_mock_http1_requests_total{environment=\"\(environment.rawValue)\"} \(snapshot.http1Requests[environmentIndex])\n"
        }
        text += "# HELP apns_mock_connections_open Connections open now on the APNs listeners.\n"
        text += "# TYPE apns_mock_connections_open gauge\n"
        text += "apns_mock_connections_open \(snapshot.openConnections)\n"
        text += "# HELP apns_mock_connections_total Connections accepted on the APNs listeners.\n"
        text += "# TYPE apns_mock_connections_total counter\n"
        text += "apns_mock_connections_total \(snapshot.acceptedConnections)\n"
        text += snapshot.latency.prometheusText(
            name: "apns_mock_push_latency_seconds", help: "Time from a complete request to its answer, fault delays included.")
        return text
    }

    /// What the APNs listeners' transport refused or cut short, in the same format: connections
    /// refused at `max_connections`, pauses in accepting at the descriptor limit, HTTP/2
    /// prefaces that did not come in time, and pushes not read whole in time.
    public static func transportText(_ metrics: TransportMetrics) -> String {
        "# HELP apns_mock_connections_refused_total Connections closed at once after accept: max_connections reached, or shutting down.\n"
            + "# TYPE apns_mock_connections_refused_total counter\n"
            + "apns_mock_connections_refused_total \(metrics.rejectedConnections)\n"
            + "# HELP apns_mock_accept_pauses_total Times the listeners stopped accepting for a moment because the process or system"
            + " ran out of file descriptors (EMFILE, ENFILE).\n"
            + "# TYPE apns_mock_accept_pauses_total counter\n"
            + "apns_mock_accept_pauses_total \(metrics.acceptPauses)\n"
            + "# HELP apns_mock_preface_timeouts_total Connections closed because the client's HTTP/2 preface and first SETTINGS"
            + " did not arrive within connection_preface_timeout_seconds.\n"
            + "# TYPE apns_mock_preface_timeouts_total counter\n"
            + "apns_mock_preface_timeouts_total \(metrics.prefaceTimeouts)\n"
            + "# HELP apns_mock_request_timeouts_total Pushes answered 408 because their headers or the whole push did not arrive in time.\n"
            + "# TYPE apns_mock_request_timeouts_total counter\n"
            + "apns_mock_request_timeouts_total \(metrics.timedOutRequests)\n"
    }

    /// The capture file's lines by what became of them, in the same format: a dropped line
    /// (a failed write, a full disk) is lost from the file, so CI can alert on it.
    public static func captureFileText(written: Int, dropped: Int, unsynced: Int) -> String {
        "# HELP apns_mock_capture_file_lines_total Capture file lines written, dropped (a failed write: the push was answered 500),"
            + " or written but not synced (a failed fdatasync with --capture-fsync: answered 500).\n"
            + "# TYPE apns_mock_capture_file_lines_total counter\n"
            + "apns_mock_capture_file_lines_total{result=\"written\"} \(written)\n"
            + "apns_mock_capture_file_lines_total{result=\"dropped\"} \(dropped)\n"
            + "apns_mock_capture_file_lines_total{result=\"unsynced\"} \(unsynced)\n"
    }
}
