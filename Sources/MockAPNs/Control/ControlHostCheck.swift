import HTTPTransport

/// Which hosts the control API answers for, by the name a request's `Host` (or HTTP/2's
/// `:authority`) gives, port aside: `localhost`, any IP address, the address it is bound to,
/// and the names ``MockServerSettings/controlAllowedHosts`` adds.
///
/// This is what stops DNS rebinding: a page on `evil.example` whose name is made to resolve
/// to 127.0.0.1 reaches the port, but its requests say `Host: evil.example`. An IP address
/// is allowed whatever it is, since rebinding needs a name, and a container's port published
/// on another port (`-p 8199:2199`, `Host: 127.0.0.1:8199`) or a LAN address keeps working:
/// ports are not compared.
struct ControlHostCheck: Sendable {
    /// Lowercased names, without a trailing dot.
    private let names: Set<String>

    /// The names a mock bound to `bindHost` answers, with `extraNames`.
    init(bindHost: String, extraNames: [String]) {
        names = Set(([Self.loopbackName, bindHost] + extraNames).map(Self.normalized))
    }

    /// The name every bind answers: a browser tab on another site cannot make a request say it.
    static let loopbackName = "localhost"

    /// Whether a request with this `Host` or `:authority` is answered; a request without one
    /// (which no browser sends) is not.
    func allows(authority: String?) -> Bool {
        guard let authority, let host = Self.hostName(ofAuthority: authority) else { return false }
        return Self.isIPAddress(host) || names.contains(Self.normalized(host))
    }

    /// The names answered besides IP addresses, sorted, for the error.
    var allowedNames: [String] { names.sorted() }

    /// `host` of `host`, `host:port`, `[v6]` or `[v6]:port` (brackets removed); nil when empty
    /// or malformed.
    static func hostName(ofAuthority authority: String) -> String? {
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            let rest = authority[authority.index(after: close)...]
            guard rest.isEmpty || (rest.first == ":" && rest.dropFirst().allSatisfy(\.isASCII)) else { return nil }
            let host = authority[authority.index(after: authority.startIndex)..<close]
            return host.isEmpty ? nil : String(host)
        }
        let host = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return host.isEmpty ? nil : String(host)
    }

    /// Whether `host` is an IPv4 or IPv6 address literal (IPv6 without brackets).
    static func isIPAddress(_ host: String) -> Bool {
        SocketAddress(literal: host, port: 0) != nil
    }

    /// Whether `name` can be given as an allowed host: visible ASCII, no port, scheme, path
    /// or user part.
    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { (0x21...0x7E).contains($0) && !":/@?#[]".utf8.contains($0) }
    }

    private static func normalized(_ name: String) -> String {
        var name = name.lowercased()
        if name.count > 1, name.hasSuffix(".") { name.removeLast() }
        return name
    }
}
