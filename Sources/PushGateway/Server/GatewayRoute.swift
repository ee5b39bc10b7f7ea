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
    var name: String {
        switch self {
        case .push: "push"
        case .register: "register"
        case .health: "healthz"
        case .metrics: "metrics"
        }
    }

    /// The route for a request path (query ignored), or nil.
    init?(path: String) {
        // Compared as bytes: `init(rawValue:)` on a split-off copy costs a string switch and
        // an allocation for every request.
        let bare = path.utf8.firstIndex(of: UInt8(ascii: "?")).map { path.utf8[..<$0] } ?? path.utf8[...]
        guard let route = Self.allCases.first(where: { $0.rawValue.utf8.elementsEqual(bare) }) else { return nil }
        self = route
    }
}
