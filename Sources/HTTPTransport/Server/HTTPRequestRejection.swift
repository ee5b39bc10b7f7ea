/// Why the transport answered a request itself instead of handing it to the handler: it was
/// not valid HTTP, went past a limit, or did not arrive in time.
///
/// The handler decides the answer's shape (`HTTPServerHandler.rejectedRequestResponse`), so a
/// server that speaks a protocol of its own (APNs' `{"reason":…}`, a gateway's `{"error":…}`)
/// answers in it; the status is the kind's.
public struct HTTPRequestRejection: Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, with the HTTP status it is answered with. New kinds may be added, so
    /// a `switch` over them needs a `default`.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// A name for logs, such as `requestTimeout`.
        public let name: String
        /// The status the transport answers with.
        public let status: Int

        private init(name: String, status: Int) {
            self.name = name
            self.status = status
        }

        /// 400: not valid HTTP/1.1 (the request line, a header or the body's framing).
        /// HTTP/2 errors are nghttp2's: it resets the stream or ends the connection itself.
        public static let malformed = Kind(name: "malformed", status: 400)
        /// 408: the request was not complete (headers and body) within
        /// `HTTPServerConfiguration.requestReadTimeout` of its first byte, or its headers
        /// within `requestHeadersTimeout`.
        public static let requestTimeout = Kind(name: "requestTimeout", status: 408)
        /// 413: the body went past `HTTPServerConfiguration.maxBodySize`.
        public static let bodyTooLarge = Kind(name: "bodyTooLarge", status: 413)
        /// 414: the HTTP/1.1 request line went past the parser's limit (`HTTP1ParserLimits`).
        public static let uriTooLong = Kind(name: "uriTooLong", status: 414)
        /// 431: the header list went past `HTTPServerConfiguration.maxHeaderListSize`.
        public static let headerListTooLarge = Kind(name: "headerListTooLarge", status: 431)
        /// 503: the server's shutdown grace period ended before the request was answered (or
        /// read whole): it is answered this way rather than cut off with the connection.
        public static let shuttingDown = Kind(name: "shuttingDown", status: 503)
        /// 505: an HTTP/1.x version other than 1.0 and 1.1.
        public static let versionNotSupported = Kind(name: "versionNotSupported", status: 505)
        /// 505: an HTTP/1.x request to a listener that speaks HTTP/2 only
        /// (`HTTPServerConfiguration.acceptsHTTP1` false), answered in HTTP/1.1 so that the
        /// client can read why, then closed.
        public static let http2Only = Kind(name: "http2Only", status: 505)

        public var description: String { name }
    }

    /// What went wrong.
    public let kind: Kind
    /// The limit passed, for ``Kind/bodyTooLarge``, ``Kind/headerListTooLarge`` and
    /// ``Kind/uriTooLong``: bytes, or fields when an HTTP/1.1 head had too many; nil for the
    /// other kinds.
    public let limit: Int?
    /// A plain-text explanation for the client, such as `request body exceeds 4096 bytes`. It
    /// never quotes the request, so a server may send it back as it is.
    public let message: String

    /// The kind's status.
    public var status: Int { kind.status }

    /// The transport's own answer: the status, with the message as plain text.
    public var defaultResponse: HTTPResponse { HTTPResponse(status: status, text: message + "\n") }

    public var description: String { "\(status) \(kind.name): \(message)" }

    init(_ kind: Kind, limit: Int? = nil, message: String) {
        self.kind = kind
        self.limit = limit
        self.message = message
    }

    static func bodyTooLarge(limit: Int) -> HTTPRequestRejection {
        HTTPRequestRejection(.bodyTooLarge, limit: limit, message: "request body exceeds \(limit) bytes")
    }

    static func headerListTooLarge(limit: Int) -> HTTPRequestRejection {
        HTTPRequestRejection(.headerListTooLarge, limit: limit, message: "request header list exceeds \(limit) bytes")
    }

    static func requestTimeout(_ timeout: Duration) -> HTTPRequestRejection {
        HTTPRequestRejection(.requestTimeout, message: "request not complete within \(Self.describe(timeout)) of its start")
    }

    static let shuttingDown = HTTPRequestRejection(.shuttingDown, message: "the server shut down before answering")

    static func headersTimeout(_ timeout: Duration) -> HTTPRequestRejection {
        HTTPRequestRejection(.requestTimeout, message: "request headers not complete within \(Self.describe(timeout)) of its start")
    }

    /// When a request that began arriving at `start` runs out of time: the headers' deadline
    /// while they arrive, if it comes first, else the whole request's.
    static func deadline(
        startedAt start: ContinuousClock.Instant, headersComplete: Bool, _ configuration: HTTPServerConfiguration
    ) -> ContinuousClock.Instant {
        let whole = start + configuration.requestReadTimeout
        return headersComplete ? whole : min(whole, start + configuration.requestHeadersTimeout)
    }

    /// The answer to a request past its ``deadline(startedAt:headersComplete:_:)``.
    static func timedOut(headersComplete: Bool, _ configuration: HTTPServerConfiguration) -> HTTPRequestRejection {
        !headersComplete && configuration.requestHeadersTimeout < configuration.requestReadTimeout
            ? .headersTimeout(configuration.requestHeadersTimeout) : .requestTimeout(configuration.requestReadTimeout)
    }

    /// `10 s`, `250 ms`: whole seconds when the duration is a whole number of them.
    private static func describe(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        if attoseconds == 0 { return "\(seconds) s" }
        return "\(seconds * 1000 + attoseconds / 1_000_000_000_000_000) ms"
    }
}
