/// The rule sets push-inspect knows by name (`--profile NAME`).
public enum BuiltInProfile: String, Sendable, Hashable, CaseIterable {
    /// What APNs enforces or silently ignores: sizes, `aps` shape and types, headers.
    case apple
    /// Leak detectors on every string (allowed keys and values come from a policy file).
    case privacy
    /// `aps.badge`, when present, is an integer ≥ 0 (presence and maximum come from a policy file).
    case badge
    /// Identifier fields are identifier-shaped, and `aps.thread-id` agrees with the payload's id.
    case deepLink = "deep-link"
    /// The Hermes gateway's pushes, exactly as its contract (§3) fixes them.
    case hermes

    /// What the profile checks, in a sentence for a person choosing one.
    public var summary: String {
        switch self {
        case .apple: "What APNs enforces or silently ignores: sizes, the aps dictionary's shape and types, headers."
        case .privacy: "Leak detectors on every string: e-mail addresses, tokens, keys, card numbers and the like."
        case .badge: "aps.badge, when present, is an integer of at least 0."
        case .deepLink: "Identifier fields are identifier-shaped, and aps.thread-id agrees with the payload's id."
        case .hermes: "The Hermes gateway's pushes, exactly as its contract fixes them."
        }
    }

    /// The rules of the profile.
    ///
    /// - Parameter now: the time expirations are compared with when a push has no send time.
    public func rules(now: Int64? = nil) -> [any PushRule] {
        switch self {
        case .apple: AppleHeaderRules.all(now: now) + ApplePayloadRules.all
        case .privacy: Self.privacyPolicy.rules(now: now)
        case .badge: Self.badgePolicy.rules(now: now)
        case .deepLink: DeepLinkProfile.rules
        case .hermes: HermesProfile.rules(now: now)
        }
    }

    private static let privacyPolicy: Policy = {
        var policy = Policy(name: "privacy")
        policy.leaks = LeakPolicy()
        return policy
    }()

    private static let badgePolicy: Policy = {
        var policy = Policy(name: "badge")
        policy.badge = []
        return policy
    }()
}
