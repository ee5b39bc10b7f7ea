/// The `.p8` signing key the gateway mints provider tokens with, and who it belongs to.
public struct GatewayProviderKey: Sendable, Hashable {
    /// The 10-character key id (`kid`).
    public var keyID: String
    /// The 10-character team id (`iss`).
    public var teamID: String
    /// Path to the `.p8` (PKCS#8 PEM) file; nil when the key itself is in the environment
    /// (``GatewaySecrets/providerKey``), where a container's secrets are.
    public var path: String?

    public init(keyID: String, teamID: String, path: String?) {
        self.keyID = keyID
        self.teamID = teamID
        self.path = path
    }

    /// Parses `KEY_ID:TEAM_ID:P8_PATH`, the `--auth-key` form (the path may contain colons),
    /// or `KEY_ID:TEAM_ID` for a key in the environment.
    ///
    /// - Throws: ``GatewayConfigurationError`` when a part is missing or empty.
    public init(commandLineSpec spec: String) throws(GatewayConfigurationError) {
        let parts = spec.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 2, !parts.contains(where: \.isEmpty) else {
            throw GatewayConfigurationError("auth key: expected KEY_ID:TEAM_ID:P8_PATH (or KEY_ID:TEAM_ID with the key in "
                + "\(GatewaySecrets.providerKeyVariable)), got \"\(spec)\"")
        }
        self.init(keyID: parts[0], teamID: parts[1], path: parts.count == 3 ? parts[2] : nil)
    }
}
