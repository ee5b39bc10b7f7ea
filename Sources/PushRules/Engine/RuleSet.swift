/// The rules a run checks, in order: built from profiles and policies, then applied to
/// push after push. Building is done once; checking allocates only for findings.
///
/// ```swift
/// let rules = try RuleSet(profiles: [.hermes, .apple])
/// for push in pushes where !rules.check(push).passed { … }
/// ```
public struct RuleSet: Sendable {
    /// The rules, in the order they run.
    public private(set) var rules: [any PushRule]

    /// A rule set of exactly these rules.
    public init(rules: [any PushRule]) {
        self.rules = rules
    }

    /// The id of the rule that reports a payload that is not JSON, or not a JSON object, when
    /// the `apple` profile, which reports it otherwise (`apple.aps-shape`), is left out.
    public static let unjudgedPayloadRuleID = "input.unjudged-payload"

    /// The rules of built-in profiles and policies, profiles first, duplicates dropped.
    ///
    /// Without `apple`, the set ends with ``unjudgedPayloadRuleID``: a payload that does not
    /// parse, or is not an object, would otherwise pass every rule, none of which could read it.
    ///
    /// - Parameters:
    ///   - profiles: built-in profiles by name.
    ///   - policies: policies read from files.
    ///   - now: the time expirations are compared with when a push has no send time.
    public init(profiles: [BuiltInProfile], policies: [Policy] = [], now: Int64? = nil) {
        var rules: [any PushRule] = []
        var seen: Set<String> = []
        for profile in profiles where seen.insert(profile.rawValue).inserted {
            rules += profile.rules(now: now)
        }
        for policy in policies {
            rules += policy.rules(now: now)
        }
        if !seen.contains(BuiltInProfile.apple.rawValue) { rules.append(UnjudgedPayloadRule.rule) }
        self.init(rules: rules)
    }

    /// The ids of the rules, in order.
    public var ruleIDs: [String] { rules.map(\.id) }

    /// Checks one push against every rule whose scope holds.
    ///
    /// - Parameter recordApplied: whether to list the rules that applied (JUnit needs it;
    ///   plain checking skips the work).
    public func check(_ push: PushInput, recordApplied: Bool = false) -> PushCheckResult {
        var findings: [Finding] = []
        var applied: [String] = []
        if recordApplied { applied.reserveCapacity(rules.count) }
        for rule in rules where rule.scope.contains(push) {
            if recordApplied { applied.append(rule.id) }
            rule.check(push, into: &findings)
        }
        return PushCheckResult(source: push.source, rulesApplied: applied, findings: findings)
    }
}
