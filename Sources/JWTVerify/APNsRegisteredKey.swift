/// An APNs signing key as registered with the mock: the public half of a `.p8` key and
/// the account facts APNs knows about it.
///
/// ```swift
/// let keys: [String: APNsRegisteredKey] = [
///     "ABC123DEFG": APNsRegisteredKey(
///         publicKey: try ES256PublicKey(contentsOfFile: "certs/AuthKey_ABC123DEFG.pub.pem"),
///         teamID: "DEF123GHIJ",
///         environments: .both),
/// ]
/// ```
public struct APNsRegisteredKey: Sendable {
    /// The key that verifies tokens whose `kid` names this registration.
    public var publicKey: ES256PublicKey
    /// The team that owns the key; a token's `iss` must equal it.
    public var teamID: String
    /// The environments where the key may be used.
    public var environments: APNsKeyEnvironmentScope
    /// For a topic-specific key, the topics (bundle IDs) it may push to; `nil` for a
    /// team-scoped key, which may push to any of the team's topics.
    public var topics: Set<String>?

    /// Registers a key.
    public init(
        publicKey: ES256PublicKey,
        teamID: String,
        environments: APNsKeyEnvironmentScope = .both,
        topics: Set<String>? = nil
    ) {
        self.publicKey = publicKey
        self.teamID = teamID
        self.environments = environments
        self.topics = topics
    }

    /// Whether the key is restricted to particular topics.
    public var isTopicSpecific: Bool { topics != nil }
}
