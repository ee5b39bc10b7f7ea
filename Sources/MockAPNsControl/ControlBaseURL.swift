/// `http://host:port[/prefix]`, the control API's base URL; a prefix (for a proxy) is kept.
struct ControlBaseURL: Sendable, Hashable {
    let host: String
    let port: Int
    /// The prefix without a trailing `/`; empty for none.
    let basePath: String

    init(_ url: String) throws(MockControlError) {
        func invalid(_ why: String) -> MockControlError {
            MockControlError(.invalidBaseURL, request: "", "\(MockControlError.quoted(url)) \(why)")
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
        self.host = String(host)
        self.port = port
        self.basePath = basePath
    }
}
