/// The sizes an ``HTTP1RequestParser`` accepts. Past each, parsing stops with an
/// ``HTTP1ParseError`` whose status says which answer fits (414, 431 or 413).
///
/// The defaults are the HTTP/1.1 server's (`HTTPServerConfiguration`'s header-list and body
/// defaults); the session sets the two configurable ones from its configuration.
public struct HTTP1ParserLimits: Sendable, Hashable {
    /// Longest request line, CRLF excluded: 414 above it.
    public var maxRequestLineSize: Int
    /// Most bytes of a head (request line, fields, the empty line) or of a trailer section,
    /// counted as they arrive, so that a line that never ends is bounded too: 431 above it.
    public var maxHeadSize: Int
    /// Largest header list in RFC 9113's measure (request target, then name + value + 32 per
    /// field), as HTTP/2 counts it, so both protocols share one limit: 431 above it.
    public var maxHeaderListSize: Int
    /// Most fields in a head or a trailer section: 431 above it.
    public var maxFieldCount: Int
    /// Largest body, declared by `Content-Length` or summed over chunks: 413 above it.
    public var maxBodySize: Int

    /// 80 KiB for a whole head: room for the largest header list a client sends here.
    public static let defaultMaxHeadSize = 80 * 1024
    /// As long as a whole head may be: the request line has no limit of its own by default.
    public static let defaultMaxRequestLineSize = defaultMaxHeadSize
    /// `HTTPServerConfiguration.defaultMaxHeaderListSize`.
    public static let defaultMaxHeaderListSize = 64 * 1024
    /// A list within the default size has at most this many fields (32 bytes each at least),
    /// so the count binds only when the size limit is raised.
    public static let defaultMaxFieldCount = defaultMaxHeaderListSize / 32
    /// `HTTPServerConfiguration.defaultMaxBodySize`.
    public static let defaultMaxBodySize = 1024 * 1024

    /// Every limit at its named default, or as given.
    public init(
        maxRequestLineSize: Int = Self.defaultMaxRequestLineSize, maxHeadSize: Int = Self.defaultMaxHeadSize,
        maxHeaderListSize: Int = Self.defaultMaxHeaderListSize, maxFieldCount: Int = Self.defaultMaxFieldCount,
        maxBodySize: Int = Self.defaultMaxBodySize
    ) {
        self.maxRequestLineSize = maxRequestLineSize
        self.maxHeadSize = maxHeadSize
        self.maxHeaderListSize = maxHeaderListSize
        self.maxFieldCount = maxFieldCount
        self.maxBodySize = maxBodySize
    }
}
