/// A named set of payload and header requirements: what a policy file says, and what the
/// built-in profiles other than `apple` are made of.
///
/// Each section that is set becomes one rule, with the id `<name>.<section>`
/// (`hermes.allowed-keys`, `privacy.leaks`); sections left empty check nothing.
///
/// ```swift
/// var policy = Policy(name: "myapp")
/// policy.allowedKeys = ["aps", "session_id"]
/// policy.leaks = LeakPolicy()
/// let rules = RuleSet(profiles: [.apple], policies: [policy])
/// ```
public struct Policy: Sendable {
    /// The prefix of the rule ids.
    public var name: String
    /// The pushes every rule of the policy applies to.
    public var scope: RuleScope
    /// Every key the payload may hold (nil: not checked).
    public var allowedKeys: [JSONPath]?
    /// Keys that must be present.
    public var requiredKeys: [ScopedPath]
    /// Values fields may hold.
    public var allowedValues: [AllowedValue]
    /// Leak detection (nil: off).
    public var leaks: LeakPolicy?
    /// Badge requirements; when set (even empty), any badge present must be an integer ≥ 0.
    public var badge: [BadgeRequirement]?
    /// Identifier fields that deep links rely on.
    public var identifiers: [IdentifierField]
    /// Fields that must be equal.
    public var equalFields: [FieldEquality]
    /// URL deep links.
    public var urlLinks: [URLDeepLink]
    /// Header requirements.
    public var headers: [HeaderRequirement]

    /// An empty policy named `name`: it checks nothing until sections are set.
    public init(name: String, scope: RuleScope = .all) {
        self.name = name
        self.scope = scope
        self.allowedKeys = nil
        self.requiredKeys = []
        self.allowedValues = []
        self.leaks = nil
        self.badge = nil
        self.identifiers = []
        self.equalFields = []
        self.urlLinks = []
        self.headers = []
    }

    /// The rules the policy's sections make, in a fixed order.
    ///
    /// - Parameter now: the time an expiration is compared with when a push has no send time.
    public func rules(now: Int64? = nil) -> [any PushRule] {
        var rules: [any PushRule] = []
        func id(_ section: String) -> String { "\(name).\(section)" }
        if !headers.isEmpty { rules.append(HeaderRule(id: id("headers"), scope: scope, requirements: headers, now: now)) }
        if let allowedKeys { rules.append(AllowedKeysRule(id: id("allowed-keys"), scope: scope, allowed: allowedKeys)) }
        if !requiredKeys.isEmpty { rules.append(RequiredKeysRule(id: id("required-keys"), scope: scope, required: requiredKeys)) }
        if !allowedValues.isEmpty {
            rules.append(AllowedValuesRule(id: id("allowed-values"), scope: scope, entries: allowedValues))
        }
        if let badge { rules.append(BadgeRule(id: id("badge"), scope: scope, requirements: badge)) }
        if !identifiers.isEmpty { rules.append(IdentifierRule(id: id("identifiers"), scope: scope, fields: identifiers)) }
        if !equalFields.isEmpty { rules.append(FieldEqualityRule(id: id("equal-fields"), scope: scope, equalities: equalFields)) }
        if !urlLinks.isEmpty { rules.append(URLDeepLinkRule(id: id("url-links"), scope: scope, links: urlLinks)) }
        if let leaks {
            rules.append(LeakRule(
                id: id("leaks"), scope: scope, scanner: leaks.scanner, exempt: Set(leaks.exempt.compactMap(\.keys))))
        }
        return rules
    }
}
