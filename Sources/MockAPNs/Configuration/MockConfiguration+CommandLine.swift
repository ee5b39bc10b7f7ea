import JWTVerify

extension MockConfiguration {
    /// Adds the keys of repeated `--auth-key` flags; a key ID given twice is an error, as a
    /// repeated key ID is in the configuration file (the second would silently replace the
    /// first).
    ///
    /// - Throws: ``ConfigurationError`` for a malformed spec, an unreadable key or a repeated ID.
    public mutating func addKeys(commandLineSpecs specs: [String]) throws(ConfigurationError) {
        var given: Set<Substring> = []
        for spec in specs {
            let keyID = spec.prefix { $0 != ":" }
            guard given.insert(keyID).inserted else {
                throw ConfigurationError(.duplicateID, path: "--auth-key", "key ID \"\(keyID)\" is given more than once")
            }
            try addKey(commandLineSpec: spec)
        }
    }

    /// Registers a provider key given as `KEY_ID:TEAM_ID:PATH`, the form of `apns-mock
    /// --auth-key`. PATH is a `.p8` or a public-key PEM; the key is valid in both
    /// environments for every topic.
    ///
    /// - Throws: ``ConfigurationError`` saying which part is wrong.
    public mutating func addKey(commandLineSpec spec: String) throws(ConfigurationError) {
        let parts = spec.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, !parts[2].isEmpty else {
            throw ConfigurationError(.invalidValue, path: "--auth-key", "expected KEY_ID:TEAM_ID:PATH, found \"\(spec)\"")
        }
        for (name, value) in [("KEY_ID", parts[0]), ("TEAM_ID", parts[1])] where !ConfigurationJSON.isAppleIdentifier(value) {
            throw ConfigurationError(.invalidValue, path: "--auth-key", "\(name) must be 10 letters or digits, found \"\(value)\"")
        }
        let publicKey = try ConfigurationJSON.loadKey(file: parts[2], path: "--auth-key")
        registry.keys[parts[0]] = APNsRegisteredKey(publicKey: publicKey, teamID: parts[1], environments: .both, topics: nil)
    }

    /// Adds an app by bundle ID, the form of `apns-mock --topic`; pushes may then use it
    /// and its push-type suffixes as topics.
    ///
    /// - Throws: ``ConfigurationError`` for an empty ID or one with spaces or a push-type suffix.
    public mutating func addApp(commandLineBundleID bundleID: String) throws(ConfigurationError) {
        guard !bundleID.isEmpty, !bundleID.contains(where: \.isWhitespace) else {
            throw ConfigurationError(.invalidValue, path: "--topic", "expected a bundle ID such as com.example.app, found \"\(bundleID)\"")
        }
        registry.bundleIDs.insert(bundleID)
    }
}
