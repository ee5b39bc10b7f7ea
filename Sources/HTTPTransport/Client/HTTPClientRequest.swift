/// One request for `HTTP2Client.send(_:)`.
///
/// Header names are sent lowercased, as HTTP/2 requires. Connection-specific headers
/// (`connection`, `transfer-encoding`, ...) and `host` are dropped, and `content-length`
/// is set from `body`.
public struct HTTPClientRequest: Sendable, Hashable {
    /// `:method`, such as `POST`.
    public var method: String
    /// `:path`, such as `/3/device/<token>`.
    public var path: String
    /// `:authority`; nil uses the client's host and port.
    public var authority: String?
    /// Regular header fields, sent in this order.
    public var headers: HTTPHeaders
    /// The request body; empty sends none.
    public var body: [UInt8]
    /// How long to wait for the whole response; nil uses the client's `requestTimeout`.
    public var timeout: Duration?

    /// A request.
    ///
    /// - Parameters:
    ///   - method: the HTTP method; `GET` by default.
    ///   - path: the request path, starting with `/`.
    ///   - authority: `:authority`; nil uses the client's host and port.
    ///   - headers: regular header fields.
    ///   - body: the request body.
    ///   - timeout: per-request timeout; nil uses the client's default.
    public init(
        method: String = "GET", path: String, authority: String? = nil, headers: HTTPHeaders = [:],
        body: [UInt8] = [], timeout: Duration? = nil
    ) {
        self.method = method
        self.path = path
        self.authority = authority
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}
