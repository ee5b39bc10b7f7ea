import HTTPTransport
import StrictJSON

/// The checks every control-API request passes before its query or body is read, in this
/// order: the host it names, the access token, and for a change, a JSON content type
/// (docs/control-api.md, "Security").
extension ControlAPI {
    /// The media type a request that changes state must declare.
    static let requiredContentType = "application/json"

    /// The answer refusing `request`, or nil when it may go on.
    func refusal(of request: HTTPRequest, path: String) -> HTTPResponse? {
        // DNS rebinding: a page whose name resolves to this address reaches the port, but
        // names its own host.
        guard hostCheck.allows(authority: request.authority) else {
            let given = request.authority.map { "host \(JSONValue.string($0))" } ?? "a request without a Host header"
            return Self.error(421, "the control API does not answer \(given): it answers IP addresses and "
                + hostCheck.allowedNames.joined(separator: ", ")
                + "; add a name you reach it by with --control-allowed-host NAME (APNS_MOCK_CONTROL_ALLOWED_HOST)")
        }
        // /healthz stays open, for health checks that hold no secret; nothing else is
        // read, not even the query, before the token is checked.
        if let accessToken, !(request.method == "GET" && path == "/healthz"), !Self.carries(accessToken, request) {
            var response = Self.error(401, "the control API needs its access token: send authorization: Bearer <token>")
            response.headers.add(name: "www-authenticate", value: #"Bearer realm="apns-mock control API""#)
            return response
        }
        // A browser sends a form or a `text/plain` fetch to any site without asking it
        // first; `application/json` it sends cross-site only after a CORS preflight, which
        // this API never approves.
        // Only on endpoints: another path or method is a 404 or 405, which says more.
        if Self.changesState(request.method),
            Self.acceptedParameters(method: request.method, path: path) != nil || DeliveryRoutes.owns(path),
            !Self.isJSON(request.headers["content-type"]) {
            let given = request.headers["content-type"].map { "content-type \(JSONValue.string($0))" } ?? "no content-type"
            return Self.error(415, "\(request.method) \(path) changes the mock, so it needs content-type: \(Self.requiredContentType) "
                + "(found \(given)), even with no body")
        }
        return nil
    }

    /// Whether `method` is one the control API changes state with.
    static func changesState(_ method: String) -> Bool {
        method == "PUT" || method == "POST" || method == "DELETE"
    }

    /// Whether a `content-type` value is `application/json`, in any case, with or without
    /// parameters (`; charset=utf-8`).
    static func isJSON(_ value: String?) -> Bool {
        guard let value else { return false }
        let mediaType = value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return mediaType.trimmingASCIISpaces().lowercased() == requiredContentType
    }
}

extension Substring {
    fileprivate func trimmingASCIISpaces() -> Substring {
        var text = self
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return text
    }
}
