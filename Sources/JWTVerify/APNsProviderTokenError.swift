/// Why APNs refused a provider token: each case is one APNs `reason` with its HTTP status.
///
/// ```swift
/// catch let error as APNsProviderTokenError {
///     respond(status: error.status, body: #"{"reason":"\#(error.reason)"}"#)
/// }
/// ```
public enum APNsProviderTokenError: Error, Sendable, Hashable, CaseIterable {
    /// 403: no `authorization` header, an empty one, or `bearer` with nothing after it.
    case missingProviderToken
    /// 403: the token is malformed, its signature does not verify, its `kid` is unknown,
    /// `iss` is not the key's team, a claim is missing, `iat` is too far in the future, or
    /// a topic-specific key is used for another topic. The detail says which.
    case invalidProviderToken(detail: String)
    /// 403: `iat` is older than the token lifetime (one hour at APNs): the token's age and
    /// that lifetime, in whole seconds, so the message can say by how much.
    case expiredProviderToken(ageSeconds: Int, lifetimeSeconds: Int)
    /// 429: a different token on the same connection less than 20 minutes after the
    /// previous one took effect.
    case tooManyProviderTokenUpdates
    /// 403: the `kid` is not related to the key of the connection's first push (another
    /// team's key, or a key of a different kind).
    case unrelatedKeyIdInToken
    /// 403: the key is scoped to the other environment.
    case badEnvironmentKeyIdInToken

    /// One value per case, with an empty detail for ``invalidProviderToken(detail:)`` and an
    /// hour and a second for ``expiredProviderToken(ageSeconds:lifetimeSeconds:)``.
    public static let allCases: [APNsProviderTokenError] = [
        .missingProviderToken, .invalidProviderToken(detail: ""), .expiredProviderToken(ageSeconds: 3_601, lifetimeSeconds: 3_600),
        .tooManyProviderTokenUpdates, .unrelatedKeyIdInToken, .badEnvironmentKeyIdInToken,
    ]

    /// The `reason` string exactly as APNs sends it in the JSON error body.
    public var reason: String {
        switch self {
        case .missingProviderToken: "MissingProviderToken"
        case .invalidProviderToken: "InvalidProviderToken"
        case .expiredProviderToken: "ExpiredProviderToken"
        case .tooManyProviderTokenUpdates: "TooManyProviderTokenUpdates"
        case .unrelatedKeyIdInToken: "UnrelatedKeyIdInToken"
        case .badEnvironmentKeyIdInToken: "BadEnvironmentKeyIdInToken"
        }
    }

    /// The HTTP status APNs answers with.
    public var status: Int {
        switch self {
        case .tooManyProviderTokenUpdates: 429
        default: 403
        }
    }

    /// A sentence for logs and the mock's capture view; not sent on the wire.
    public var message: String {
        switch self {
        case .missingProviderToken:
            "no provider token: send 'authorization: bearer <jwt>'"
        case .invalidProviderToken(let detail):
            "invalid provider token: \(detail)"
        case let .expiredProviderToken(age, lifetime):
            "token iat is \(Self.grouped(age)) s old; APNs accepts up to \(Self.grouped(lifetime)) s: mint a new token"
        case .tooManyProviderTokenUpdates:
            "the new token was minted less than 20 minutes after the one it replaces on this connection, which took effect less than 20 minutes ago; reuse tokens for 20-60 minutes"
        case .unrelatedKeyIdInToken:
            "the kid is unrelated to the key used on this connection's first push; open a new connection for it"
        case .badEnvironmentKeyIdInToken:
            "the key is not enabled for this connection's environment"
        }
    }
}

extension APNsProviderTokenError {
    /// `3724` as `3,724`: ages are read by people, in logs and captures.
    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return value < 0 ? "-" + grouped : grouped
    }
}

extension APNsProviderTokenError: CustomStringConvertible {
    /// A one-line summary for logs; never contains key material.
    public var description: String { "\(status) \(reason): \(message)" }
}
