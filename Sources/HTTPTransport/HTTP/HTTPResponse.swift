/// A response: status, headers and an optional body.
///
/// `content-length` is set by the transport from `body`; do not set it yourself.
public struct HTTPResponse: Sendable, Hashable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]?

    public init(status: Int, headers: HTTPHeaders = [:], body: [UInt8]? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response whose body is `text` in UTF-8, with the given content type.
    public init(status: Int, headers: HTTPHeaders = [:], text: String, contentType: String = "text/plain; charset=utf-8") {
        var headers = headers
        headers.replaceOrAdd(name: "content-type", value: contentType)
        self.init(status: status, headers: headers, body: Array(text.utf8))
    }
}
