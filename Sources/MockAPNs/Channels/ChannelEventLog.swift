import APNsCore
import Foundation
import HTTPTransport
import Synchronization

/// Where channel management requests and broadcasts are observed: counted for `/metrics`,
/// the last ``recentLimit`` channel operations kept for the control API, and each channel
/// operation appended to the capture file as a line of kind `channel`. It observes only;
/// nothing here changes an answer.
public final class ChannelEventLog: Sendable {
    /// How many channel operations the control API can list.
    public static let recentLimit = 1000

    /// One counter's labels, made into text only for the exposition.
    private struct Labels: Hashable {
        var environment: APNsEnvironment
        var operation: ChannelOperation?
        var status: Int
        var reason: APNsReason?
    }

    private struct Counts {
        var operations: [Labels: Int] = [:]
        var broadcasts: [Labels: Int] = [:]
        var recent: [CaptureChannelOperation] = []
        var recentStart = 0
    }

    private let counts = Mutex(Counts())

    init() {}

    /// Records one answered channel management request.
    ///
    /// - Returns: what the capture file records of it.
    @discardableResult
    func record(request: HTTPRequest, decision: ChannelDecision, environment: APNsEnvironment, receivedAt: Date,
                capture: CaptureStore) -> CaptureChannelOperation {
        let operation = CaptureChannelOperation(
            receivedAtMicroseconds: CaptureRecord.microseconds(since1970: receivedAt), environment: environment,
            connectionID: request.connection.id, method: request.method, path: request.path,
            operation: decision.operation?.rawValue, bundleID: decision.bundleID, channelID: decision.channelID,
            storagePolicy: decision.channel?.storagePolicy.rawValue, status: decision.status, reason: decision.reason,
            explanation: decision.message, requestID: decision.requestID ?? "", teamID: decision.teamID, keyID: decision.keyID)
        capture.record(channelOperation: operation)
        let key = Labels(environment: environment, operation: decision.operation, status: decision.status, reason: decision.reason)
        counts.withLock { counts in
            counts.operations[key, default: 0] += 1
            if counts.recent.count < Self.recentLimit {
                counts.recent.append(operation)
            } else {
                counts.recent[counts.recentStart] = operation
                counts.recentStart = (counts.recentStart + 1) % Self.recentLimit
            }
        }
        return operation
    }

    /// Counts one answered broadcast.
    func recordBroadcast(environment: APNsEnvironment, status: Int, reason: APNsReason?) {
        let key = Labels(environment: environment, operation: nil, status: status, reason: reason)
        counts.withLock { $0.broadcasts[key, default: 0] += 1 }
    }

    /// The last channel operations, oldest first.
    public var recentOperations: [CaptureChannelOperation] {
        counts.withLock { Array($0.recent[$0.recentStart...] + $0.recent[..<$0.recentStart]) }
    }

    /// Channel management requests answered so far, over both environments.
    public var operationCount: Int { counts.withLock { $0.operations.values.reduce(0, +) } }

    /// Broadcasts answered so far, over both environments.
    public var broadcastCount: Int { counts.withLock { $0.broadcasts.values.reduce(0, +) } }

    /// `environment="…"[,operation="…"],status="…",reason="…"`; a request whose path or
    /// method named no operation has `operation=""`.
    private static func text(_ labels: Labels, withOperation: Bool) -> String {
        var text = "environment=\"\(labels.environment.rawValue)\""
        if withOperation { text += ",operation=\"\(labels.operation?.rawValue ?? "")\"" }
        text += ",status=\"\(labels.status)\",reason=\"\(Self.labelValue(labels.reason?.wireValue ?? ""))\""
        return text
    }

    /// A reason as a Prometheus label value: `\`, `"` and newlines escaped.
    private static func labelValue(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    /// The counters in Prometheus' text format.
    public func prometheusText() -> String {
        let (operations, broadcasts) = counts.withLock { ($0.operations, $0.broadcasts) }
        var text = "# HELP apns_mock_broadcasts_total Broadcasts (/4/broadcasts/apps/…) answered, by status and reason.\n"
            + "# TYPE apns_mock_broadcasts_total counter\n"
        let broadcastLines = broadcasts.map { (Self.text($0.key, withOperation: false), $0.value) }.sorted { $0.0 < $1.0 }
        for (labels, count) in broadcastLines { text += "apns_mock_broadcasts_total{\(labels)} \(count)\n" }
        text += "# HELP apns_mock_channel_requests_total Channel management requests answered, by operation, status and reason.\n"
            + "# TYPE apns_mock_channel_requests_total counter\n"
        let operationLines = operations.map { (Self.text($0.key, withOperation: true), $0.value) }.sorted { $0.0 < $1.0 }
        for (labels, count) in operationLines {
            text += "apns_mock_channel_requests_total{\(labels)} \(count)\n"
        }
        return text
    }
}
