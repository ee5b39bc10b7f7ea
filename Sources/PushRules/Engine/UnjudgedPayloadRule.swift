import StrictJSON

/// A payload that did not parse as JSON, or parsed as something other than an object, is a
/// finding even in a rule set without the `apple` profile, whose `apple.aps-shape` is the
/// only other rule that reports it. Every other rule reads the parsed payload's keys and so
/// sees nothing in such a push: without this rule, a duplicate key would be enough for a
/// payload carrying an e-mail address to pass `privacy` silently, and `[1]`, which APNs
/// refuses, would pass every rule.
enum UnjudgedPayloadRule {
    /// The rule, added by ``RuleSet/init(profiles:policies:now:)`` when `apple` is left out.
    static let rule = FunctionRule(id: RuleSet.unjudgedPayloadRuleID) { push, findings in
        guard push.payloadSize > 0 else { return }
        let problem: String
        switch push.payload {
        case nil: problem = push.payloadError ?? "the payload is not JSON"
        case .object?: return
        case let value?: problem = "the payload is \(kind(of: value)), not a JSON object, which APNs takes"
        }
        findings.append(Finding(rule: RuleSet.unjudgedPayloadRuleID, path: .root, message: "\(problem); no rule could judge it"))
    }

    /// What a payload that is not an object is, for the message.
    private static func kind(of value: JSONValue) -> String {
        switch value {
        case .array: "an array"
        case .string: "a string"
        case .integer, .double: "a number"
        case .bool: "a boolean"
        case .null: "null"
        case .object: "an object"
        }
    }
}
