import Foundation

/// Whether the agent has the `hermes-push` plugin running, as the app learns it from
/// `GET /api/dashboard/plugins/hub` (contract §4).
///
/// Only ``ready`` lets the app ask for notification permission; only ``notReady`` may
/// show the install sheet. ``unknown`` means the app could not tell, and then it stays
/// quiet: a user must never be nagged because the agent was unreachable.
public enum HermesPluginReadiness: Sendable, Hashable {
    /// A `hermes-push` row whose `runtime_status` is `enabled`.
    case ready
    /// The hub answered, and has no `hermes-push` row or one in another status.
    case notReady
    /// 404, 401/403, any other non-2xx, a transport error or a body that is not the
    /// hub's shape.
    case unknown

    /// The plugin's name in the hub's `plugins` list.
    public static let pluginName = "hermes-push"
    /// The `runtime_status` of a plugin that is loaded and running.
    public static let enabledStatus = "enabled"

    /// Classifies one answer of the hub endpoint.
    ///
    /// Extra members anywhere (in the root, in rows) are ignored; so are rows that are
    /// not objects or have no string `name`. A body whose root is not an object or whose
    /// `plugins` is not an array is unparsable, hence ``unknown``.
    public init(hubAnswer: HermesHubAnswer) {
        guard case .response(let status, let body) = hubAnswer, (200..<300).contains(status),
              let root = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
              let rows = root["plugins"] as? [Any]
        else {
            self = .unknown
            return
        }
        let statuses = rows.compactMap { row -> String? in
            guard let row = row as? [String: Any], row["name"] as? String == Self.pluginName else { return nil }
            // A non-string status is some state we do not know: not enabled.
            return (row["runtime_status"] as? String) ?? ""
        }
        self = statuses.contains(Self.enabledStatus) ? .ready : .notReady
    }
}

/// What the hub endpoint answered: a status and body, or no answer at all.
public enum HermesHubAnswer: Sendable, Hashable {
    /// The agent answered with `status` and `body`.
    case response(status: Int, body: Data)
    /// The request failed before an answer (no route, timeout, TLS failure…).
    case transportError(String)
}
