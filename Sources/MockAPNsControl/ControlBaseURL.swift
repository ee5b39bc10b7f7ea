/// `http://host:port[/prefix]`, the control API's base URL; a prefix (for a proxy) is kept.
///
/// ```swift
/// let base = try ControlBaseURL("http://127.0.0.1:2199/mock/")
/// base.basePath            // "/mock"
/// base.url(of: "/pushes")  // "http://127.0.0.1:2199/mock/pushes"
/// ```
public struct ControlBaseURL: Sendable, Hashable, CustomStringConvertible {
    /// The URL as given.
    public let description: String
    /// The host, without brackets for an IPv6 address.
    public let host: String
    public let port: Int
    /// The prefix without a trailing `/`; empty for none.
    public let basePath: String
    /// `host:port` as given, brackets included.
    public let authority: String

    /// Parses a base URL.
    ///
    /// - Throws: ``MockControlError`` of kind `invalidBaseURL`, whose `detail` says what is
    ///   wrong, for anything but `http://HOST:PORT` with an optional path prefix (no query).
    public init(_ url: String) throws(MockControlError) {
        func invalid(_ why: String) -> MockControlError {
            MockControlError(.invalidBaseURL, request: "", url: url, "\(MockControlError.quoted(url)) \(why)")
        }
        guard url.hasPrefix("http://") else { throw invalid("does not start with http://") }
        guard !url.contains("?"), !url.contains("#") else { throw invalid("has a query or fragment") }
        var rest = url.dropFirst("http://".count)
        var basePath = ""
        if let slash = rest.firstIndex(of: "/") {
            basePath = String(rest[slash...])
            while basePath.hasSuffix("/") { basePath.removeLast() }
            rest = rest[..<slash]
        }
        let host: Substring, portText: Substring
        if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
            host = rest[rest.index(after: rest.startIndex)..<close]
            portText = rest[close...].dropFirst(2)
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            throw invalid("has no port")
        }
        guard !host.isEmpty, let port = Int(portText), (1...65535).contains(port) else {
            throw invalid("has no valid host and port")
        }
        description = url
        self.host = String(host)
        self.port = port
        self.basePath = basePath
        authority = String(rest)
    }

    /// The URL of `path` (an endpoint such as `/pushes`, with any query) below the prefix.
    public func url(of path: String) -> String { "http://\(authority)\(basePath)\(path)" }
}
