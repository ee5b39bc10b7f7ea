/// Why an ``HTTP1RequestParser`` refused a request. The parser stops at the first one; the
/// connection cannot be read further, since where the next request would start is unknown.
public struct HTTP1ParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong, with the status a server answers it with. New kinds may be added.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// A name for logs and tests, such as `obsFold`.
        public let name: String
        /// 400, or 413, 414, 431, 505 for the kinds that say so.
        public let status: Int

        private init(_ name: String, _ status: Int) {
            self.name = name
            self.status = status
        }

        /// The request line is not `method SP request-target SP HTTP/d.d CRLF` with a token
        /// method and a target of visible ASCII.
        public static let invalidRequestLine = Kind("invalidRequestLine", 400)
        /// A method other than RFC 9110's (GET, HEAD, POST, PUT, DELETE, CONNECT, OPTIONS,
        /// TRACE) and PATCH.
        public static let unknownMethod = Kind("unknownMethod", 400)
        /// `HTTP/d.d` other than 1.0 and 1.1 (505). Checked once the head is in, so that the
        /// answer can show it.
        public static let unsupportedVersion = Kind("unsupportedVersion", 505)
        /// A field name that is empty, has a byte outside `tchar`, or no colon.
        public static let invalidFieldName = Kind("invalidFieldName", 400)
        /// Whitespace between a field name and its colon (RFC 9112 section 5.1).
        public static let whitespaceBeforeColon = Kind("whitespaceBeforeColon", 400)
        /// A line that starts with whitespace: obs-fold, or whitespace before the first field
        /// (RFC 9112 sections 5.2 and 2.2).
        public static let obsFold = Kind("obsFold", 400)
        /// A control character (other than HTAB) in a field value.
        public static let invalidFieldValue = Kind("invalidFieldValue", 400)
        /// A CR not followed by LF.
        public static let bareCR = Kind("bareCR", 400)
        /// An LF not preceded by CR: lines end in CRLF only.
        public static let bareLF = Kind("bareLF", 400)
        /// A `Content-Length` that is not one decimal number (a list, a sign, a space inside,
        /// or too large to represent).
        public static let invalidContentLength = Kind("invalidContentLength", 400)
        /// A second `Content-Length` field, even with the same value: a recipient that
        /// takes the first and one that takes the last must never disagree.
        public static let duplicateContentLength = Kind("duplicateContentLength", 400)
        /// `Content-Length` and `Transfer-Encoding` together (RFC 9112 section 6.3).
        public static let contentLengthWithTransferEncoding = Kind("contentLengthWithTransferEncoding", 400)
        /// A `Transfer-Encoding` other than one field that is exactly `chunked`.
        public static let unsupportedTransferCoding = Kind("unsupportedTransferCoding", 400)
        /// `Transfer-Encoding` in an HTTP/1.0 request, whose framing is then faulty (RFC 9112
        /// section 6.1): a 1.0 recipient would ignore it.
        public static let transferEncodingInHTTP10 = Kind("transferEncodingInHTTP10", 400)
        /// A chunk-size line that is not hex digits, with an optional `;` extension, then
        /// CRLF; a size too large to represent; or chunk data not followed by CRLF.
        public static let invalidChunk = Kind("invalidChunk", 400)
        /// The request line is longer than ``HTTP1ParserLimits/maxRequestLineSize`` (414).
        public static let requestLineTooLong = Kind("requestLineTooLong", 414)
        /// The head or the trailer section is longer than ``HTTP1ParserLimits/maxHeadSize`` (431).
        public static let headTooLarge = Kind("headTooLarge", 431)
        /// The header list passed ``HTTP1ParserLimits/maxHeaderListSize`` (431).
        public static let headerListTooLarge = Kind("headerListTooLarge", 431)
        /// More fields than ``HTTP1ParserLimits/maxFieldCount`` (431).
        public static let tooManyFields = Kind("tooManyFields", 431)
        /// The body is longer than ``HTTP1ParserLimits/maxBodySize`` (413).
        public static let bodyTooLarge = Kind("bodyTooLarge", 413)

        public var description: String { name }
    }

    /// What was wrong.
    public let kind: Kind
    /// The limit passed, for the 413, 414 and 431 kinds; nil for the others.
    public let limit: Int?

    /// The kind's status.
    public var status: Int { kind.status }

    public var description: String {
        "malformed HTTP/1.1 request: \(kind.name)" + (limit.map { " (limit \($0) bytes)" } ?? "")
    }

    init(_ kind: Kind, limit: Int? = nil) {
        self.kind = kind
        self.limit = limit
    }
}
