/// The broadcast route of the APNs listeners: `POST /4/broadcasts/apps/<bundle ID>`.
enum BroadcastPath {
    static let prefix = "/4/broadcasts/apps/"

    /// Whether `path` is on the broadcast route (whatever follows the prefix).
    static func isBroadcast(_ path: String) -> Bool {
        path.utf8.starts(with: prefix.utf8)
    }

    /// The bundle ID after the prefix: one well-formed bundle ID, nothing after it.
    static func bundleID(in path: String) -> String? {
        guard isBroadcast(path) else { return nil }
        let rest = String(path.utf8.dropFirst(prefix.utf8.count)) ?? ""
        guard TopicRules.isWellFormed(rest) else { return nil }
        return rest
    }
}
