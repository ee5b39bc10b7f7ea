/// Where an `APNsClient` sends one environment's pushes: Apple's servers or any HTTP/2
/// server that speaks the provider API, such as `apns-mock`.
///
/// ```swift
/// let apple = APNsDestination.production
/// let mock = try APNsDestination(url: "https://127.0.0.1:2197")
/// ```
public struct APNsDestination: Sendable, Hashable, CustomStringConvertible {
    /// Host name or IP literal.
    public var host: String
    /// TCP port.
    public var port: Int
    /// TLS (`https`), or cleartext HTTP/2 by prior knowledge (`http`, for a mock run with `--no-tls`).
    public var usesTLS: Bool
    /// The name checked against the server's certificate and sent in SNI; nil uses `host`.
    public var serverName: String?

    /// `api.push.apple.com:443`.
    public static let production = APNsDestination(host: "api.push.apple.com", port: 443)
    /// `api.sandbox.push.apple.com:443`.
    public static let sandbox = APNsDestination(host: "api.sandbox.push.apple.com", port: 443)
    /// `api-manage-broadcast.push.apple.com:2196`: production's channel management API.
    public static let channelManagementProduction = APNsDestination(host: "api-manage-broadcast.push.apple.com", port: 2196)
    /// `api-manage-broadcast.sandbox.push.apple.com:2195`: the sandbox's channel management API.
    public static let channelManagementSandbox = APNsDestination(host: "api-manage-broadcast.sandbox.push.apple.com", port: 2195)

    /// A destination from its parts.
    ///
    /// - Parameters:
    ///   - host: host name or IP literal (IPv6 with or without brackets).
    ///   - port: TCP port.
    ///   - usesTLS: false only for a cleartext (h2c) mock.
    ///   - serverName: the certificate name to expect when it differs from `host`.
    public init(host: String, port: Int, usesTLS: Bool = true, serverName: String? = nil) {
        self.host = host
        self.port = port
        self.usesTLS = usesTLS
        self.serverName = serverName
    }

    /// Parses `https://host[:port]` or `http://host[:port]`; the port defaults to 443 or 80.
    ///
    /// - Throws: `APNsClientError.invalidConfiguration` naming what is wrong with `url`.
    public init(url: String) throws(APNsClientError) {
        let usesTLS: Bool
        let rest: Substring
        if url.hasPrefix("https://") {
            usesTLS = true
            rest = url.dropFirst("https://".count)
        } else if url.hasPrefix("http://") {
            usesTLS = false
            rest = url.dropFirst("http://".count)
        } else {
            throw .invalidConfiguration("APNs URL '\(url)' must start with https:// (or http:// for a cleartext mock)")
        }
        var authority = rest
        if authority.hasSuffix("/") { authority = authority.dropLast() }
        guard !authority.isEmpty, !authority.contains("/"), !authority.contains("@") else {
            throw .invalidConfiguration("APNs URL '\(url)' must be scheme://host[:port] with no path")
        }
        var host = authority
        var port = usesTLS ? 443 : 80
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw .invalidConfiguration("APNs URL '\(url)' has an IPv6 address without its closing ']'")
            }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let number = Int(after.dropFirst()) else {
                    throw .invalidConfiguration("APNs URL '\(url)' has a malformed port")
                }
                port = number
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            guard let number = Int(authority[authority.index(after: colon)...]) else {
                throw .invalidConfiguration("APNs URL '\(url)' has a malformed port")
            }
            port = number
        }
        guard !host.isEmpty else { throw .invalidConfiguration("APNs URL '\(url)' has no host") }
        guard (1...65535).contains(port) else {
            throw .invalidConfiguration("APNs URL '\(url)' has port \(port); expected 1-65535")
        }
        self.init(host: String(host), port: port, usesTLS: usesTLS)
    }

    /// `https://host:port`.
    public var description: String {
        let printedHost = host.contains(":") ? "[\(host)]" : host
        return "\(usesTLS ? "https" : "http")://\(printedHost):\(port)"
    }
}
