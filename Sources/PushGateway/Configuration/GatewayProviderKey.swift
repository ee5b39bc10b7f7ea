/// The `.p8` signing key the gateway mints provider tokens with, and who it belongs to.
public struct GatewayProviderKey: Sendable, Hashable {
    /// The 10-character key id (`kid`).
    public var keyID: String
    /// The 10-character team id (`iss`).
    public var teamID: String
    /// Path to the `.p8` (PKCS#8 PEM) file.
    public var path: String

    public init(keyID: String, teamID: String, path: String) {
        self.keyID = keyID
        self.teamID = teamID
        self.path = path
    }

    /// Parses `KEY_ID:TEAM_ID:P8_PATH`, the `--auth-key` form (the path may contain colons).
    ///
    /// - Throws: ``GatewayConfigurationError`` when a part is missing or empty.
    public init(commandLineSpec spec: String) throws(GatewayConfigurationError) {
        let parts = spec.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty, !parts[2].isEmpty else {
            throw GatewayConfigurationError("auth key: expected KEY_ID:TEAM_ID:P8_PATH, got \"\(spec)\"")
        }
        self.init(keyID: parts[0], teamID: parts[1], path: parts[2])
    }
}
