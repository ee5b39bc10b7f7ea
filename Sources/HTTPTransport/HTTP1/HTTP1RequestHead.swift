/// A request head as ``HTTP1RequestParser`` read it: where each part lies in the head's
/// bytes, and what its fields mean for framing and keep-alive. Nothing is copied: a
/// caller turns only the parts it needs into strings, from the bytes the head arrived in.
///
/// Offsets count from the head's first byte (the method's), so they stay right when the
/// caller moves the bytes of a head that arrived in pieces.
public struct HTTP1RequestHead: Sendable, Hashable {
    /// One field line: its name and its value, the value without surrounding whitespace.
    public struct Field: Sendable, Hashable {
        public var name: Range<Int>
        public var value: Range<Int>
    }

    /// The method, a token.
    public internal(set) var method: Range<Int> = 0..<0
    /// The request target: visible ASCII.
    public internal(set) var target: Range<Int> = 0..<0
    /// The version's digits, `HTTP/major.minor`; the parser lets only 1.0 and 1.1 through.
    public internal(set) var majorVersion = 1
    public internal(set) var minorVersion = 1
    /// Every field line in wire order, duplicates included.
    public internal(set) var fields: [Field] = []
    /// The `Content-Length`, or nil without one (also for a chunked body).
    public internal(set) var contentLength: Int?
    /// The body is chunked (`Transfer-Encoding: chunked`).
    public internal(set) var isChunked = false
    /// The method is CONNECT, or `Upgrade` came with `Connection: upgrade`: the request asks
    /// to switch protocols, and nothing after it is HTTP/1.1.
    public internal(set) var isUpgrade = false
    /// The connection may carry another request after this one's answer: HTTP/1.1 unless
    /// `Connection: close`, HTTP/1.0 only with `Connection: keep-alive`, never after an upgrade.
    public internal(set) var keepAlive = true
    /// Bytes of the head, its closing empty line included.
    public internal(set) var size = 0

    /// The method, decoded (the common ones without decoding).
    public func method(in head: UnsafeRawBufferPointer) -> String {
        let bytes = UnsafeRawBufferPointer(rebasing: head[method])
        if bytes.elementsEqual("GET".utf8) { return "GET" }
        if bytes.elementsEqual("POST".utf8) { return "POST" }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The bytes of `range` in `head`, as UTF-8 (invalid sequences replaced).
    public func string(_ range: Range<Int>, in head: UnsafeRawBufferPointer) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: head[range]), as: UTF8.self)
    }
}
