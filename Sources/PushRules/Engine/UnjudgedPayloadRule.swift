/// A payload that did not parse as JSON is a finding even in a rule set without the `apple`
/// profile, whose `apple.aps-shape` is the only other rule that reports it. Every other rule
/// reads the parsed payload and so sees nothing in such a push: a duplicate key was enough
/// for a payload carrying an e-mail address to pass `privacy` silently.
enum UnjudgedPayloadRule {
    /// The rule, added by ``RuleSet/init(profiles:policies:now:)`` when `apple` is left out.
    static let rule = FunctionRule(id: RuleSet.unjudgedPayloadRuleID) { push, findings in
        guard push.payloadSize > 0, push.payload == nil else { return }
        findings.append(Finding(
            rule: RuleSet.unjudgedPayloadRuleID, path: .root,
            message: "\(push.payloadError ?? "the payload is not JSON"); no rule could judge it"))
    }
}
