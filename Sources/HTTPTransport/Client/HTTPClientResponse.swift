/// A complete response received by `HTTP2Client.send(_:)`.
public struct HTTPClientResponse: Sendable, Hashable {
    /// `:status`, such as 200.
    public var status: Int
    /// Regular header fields (no pseudo-headers) in wire order, then any trailers.
    public var headers: HTTPHeaders
    /// The response body, complete.
    public var body: [UInt8]
    /// The HTTP/2 stream the exchange used.
    public var streamID: Int32

    /// A response value, for tests and adapters.
    public init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = [], streamID: Int32) {
        self.status = status
        self.headers = headers
        self.body = body
        self.streamID = streamID
    }
}
