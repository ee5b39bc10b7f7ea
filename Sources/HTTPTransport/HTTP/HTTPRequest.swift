/// The HTTP version a message travelled on.
public enum HTTPVersion: String, Sendable, Hashable {
    case http1_1 = "HTTP/1.1"
    case http2 = "HTTP/2"
}

/// A complete request, as a server handler receives it.
public struct HTTPRequest: Sendable {
    /// `:method` in HTTP/2, the request line's method in HTTP/1.1.
    public var method: String
    /// `:path`, or the HTTP/1.1 request target.
    public var path: String
    /// `:authority`, else the `host` header.
    public var authority: String?
    /// `:scheme` in HTTP/2; `http` or `https` in HTTP/1.1 from the connection.
    public var scheme: String
    /// Regular header fields (no pseudo-headers) in wire order, duplicates included.
    public var headers: HTTPHeaders
    public var body: [UInt8]
    public var version: HTTPVersion
    /// The HTTP/2 stream, or 0 for HTTP/1.1.
    public var streamID: Int32
    /// The connection the request arrived on: its identity, state and controls.
    public var connection: HTTPConnection

    public init(
        method: String, path: String, authority: String?, scheme: String, headers: HTTPHeaders,
        body: [UInt8], version: HTTPVersion, streamID: Int32, connection: HTTPConnection
    ) {
        self.method = method
        self.path = path
        self.authority = authority
        self.scheme = scheme
        self.headers = headers
        self.body = body
        self.version = version
        self.streamID = streamID
        self.connection = connection
    }
}
