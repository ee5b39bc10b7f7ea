extension MockServerSettings {
    /// Whether ``host`` keeps the listeners on this machine: `localhost`, 127.0.0.0/8 or `::1`
    /// (and the IPv4-mapped form of a 127 address).
    public var bindsLoopbackOnly: Bool {
        let name = host.lowercased()
        if name == "localhost" || name == "::1" || name == "0:0:0:0:0:0:0:1" { return true }
        let v4 = name.hasPrefix("::ffff:") ? String(name.dropFirst("::ffff:".count)) : name
        let parts = v4.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// The start-up warning for a control API that whoever reaches the address can use: one
    /// listening beyond loopback without an access token; nil otherwise.
    ///
    /// - Parameter controlURL: where it listens, for the message.
    public func controlExposureWarning(controlURL: String) -> String? {
        guard controlAccessToken == nil, !bindsLoopbackOnly else { return nil }
        return "the control API listens on \(host) without an access token: whoever reaches \(controlURL) reads "
            + "every push and changes the mock; publish it on loopback only, or set --control-token-file or APNS_MOCK_CONTROL_TOKEN"
    }
}
