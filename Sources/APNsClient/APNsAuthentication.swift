import JWTVerify

/// How an `APNsClient` proves who it is to APNs.
public enum APNsAuthentication: Sendable {
    /// Provider tokens: ES256 JWTs signed with the team's `.p8` key, sent as
    /// `authorization: bearer …` and reused until the refresh interval passes.
    ///
    /// - Parameters:
    ///   - signingKey: the key from `AuthKey_<keyID>.p8`.
    ///   - keyID: the 10-character key ID (`kid`).
    ///   - teamID: the 10-character team ID (`iss`).
    case token(signingKey: ES256PrivateKey, keyID: String, teamID: String)
    /// A client certificate over mutual TLS; no `authorization` header is sent.
    ///
    /// - Parameters:
    ///   - certificateChainPath: PEM file with the APNs client certificate (and intermediates).
    ///   - privateKeyPath: PEM file with its private key.
    case certificate(certificateChainPath: String, privateKeyPath: String)

    /// Token authentication with the key read from a `.p8` file.
    ///
    /// ```swift
    /// let auth = try APNsAuthentication.token(p8Path: "certs/AuthKey_ABC123DEFG.p8", keyID: "ABC123DEFG", teamID: "TEAM000001")
    /// ```
    ///
    /// - Throws: `APNsClientError.invalidConfiguration` when the file cannot be read or holds no P-256 key.
    public static func token(p8Path: String, keyID: String, teamID: String) throws(APNsClientError) -> APNsAuthentication {
        do {
            return .token(signingKey: try ES256PrivateKey(contentsOfFile: p8Path), keyID: keyID, teamID: teamID)
        } catch {
            throw .invalidConfiguration("cannot load the APNs signing key: \(error)")
        }
    }
}

extension APNsAuthentication {
    /// Token authentication from the `KEY_ID:TEAM_ID:P8_PATH` form command-line tools take
    /// (`--auth-key ABC123DEFG:TEAM000001:certs/AuthKey_ABC123DEFG.p8`).
    ///
    /// - Throws: `APNsClientError.invalidConfiguration` for a malformed spec or an unreadable key.
    public static func token(commandLineSpec spec: String) throws(APNsClientError) -> APNsAuthentication {
        let parts = spec.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty, !parts[2].isEmpty else {
            throw .invalidConfiguration("expected KEY_ID:TEAM_ID:P8_PATH, such as ABC123DEFG:TEAM000001:AuthKey_ABC123DEFG.p8; got '\(spec)'")
        }
        return try token(p8Path: parts[2], keyID: parts[0], teamID: parts[1])
    }
}
