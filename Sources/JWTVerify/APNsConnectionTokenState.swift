import Foundation

/// What the provider-token rules remember about one HTTP/2 connection.
///
/// Create one per connection and pass it `inout` to every
/// ``APNsProviderTokenVerifier/verify(authorization:topic:connection:)`` call for that
/// connection. The connection is bound to a team and key on its first accepted push, and to
/// a topic-specific key's topics on the first push that key signs.
///
/// ```swift
/// var state = APNsConnectionTokenState(environment: .sandbox)   // at accept time
/// let accepted = try verifier.verify(authorization: headers["authorization"], topic: topic, connection: &state)
/// ```
public struct APNsConnectionTokenState: Sendable {
    /// The environment the connection serves.
    public let environment: APNsEnvironment

    /// The team bound on the first accepted push, if any.
    public var teamID: String? { firstRecord?.teamID }
    /// The key ID used on the first accepted push, if any.
    public var keyID: String? { firstRecord?.keyID }
    /// When the token now in force was first accepted on this connection.
    public var currentTokenAcceptedAt: Date? {
        currentRecord == nil ? nil : Date(timeIntervalSince1970: currentTokenSince)
    }

    /// The record of the connection's first accepted token, which binds the connection.
    var firstRecord: VerifiedTokenRecord?
    /// The record of the token now in force.
    var currentRecord: VerifiedTokenRecord?
    /// Seconds since 1970 when ``currentRecord`` took effect.
    var currentTokenSince: Double = 0
    /// For each topic-specific key accepted on this connection, by key ID, its topics when
    /// the connection first accepted one of its tokens: APNs binds a connection to its
    /// topics then, so a topic added to the key later waits for a new connection.
    var boundTopics: [String: Set<String>] = [:]

    /// State for a new connection, not yet bound.
    public init(environment: APNsEnvironment) {
        self.environment = environment
    }
}
