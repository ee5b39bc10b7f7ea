/// The gateway's endpoints; paths are defined here once.
enum GatewayRoute: String, CaseIterable {
    case push = "/push"
    case register = "/register"
    case health = "/healthz"
    case metrics = "/metrics"

    /// The method each endpoint answers.
    var method: String {
        switch self {
        case .push, .register: "POST"
        case .health, .metrics: "GET"
        }
    }

    /// The label in metrics and logs.
    var name: String { String(rawValue.dropFirst()) }

    /// The route for a request path (query ignored), or nil.
    init?(path: String) {
        let bare = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? path
        self.init(rawValue: bare)
    }
}
