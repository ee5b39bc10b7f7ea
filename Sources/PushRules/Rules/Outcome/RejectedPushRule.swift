import APNsCore
import StrictJSON

/// `apns.rejected`: APNs (or the mock) refused the push. What a rule finds in a push that
/// was never delivered matters less than that it was not: the finding gives the status, the
/// reason and the mock's sentence of why, quoted and escaped (it may hold the sender's text). An answer a fault rule of the mock decided (``PushResult/injected``) is no
/// finding: it says nothing of what the sender did.
///
/// Not part of a profile: push-inspect adds it unless `--allow-rejected`, and a suite that
/// rejects on purpose (the gateway conformance suite) leaves it out.
///
/// ```swift
/// let rules = RuleSet(rules: [RejectedPushRule.rule] + RuleSet(profiles: [.apple]).rules)
/// ```
public enum RejectedPushRule {
    /// The rule's id.
    public static let id = "apns.rejected"

    /// The rule. It also judges requests that never were pushes (a GET, a wrong path),
    /// reported once, as what they are.
    public static let rule = FunctionRule(id: id, scope: RuleScope(includesNonPushes: true)) { push, findings in
        guard let result = push.result, !result.isAccepted, !result.injected else { return }
        var answer = answerText(result)
        if let explanation = result.explanation { answer += ": " + JSONWriter.quoted(explanation, escaping: .terminalSafe) }
        let message = if let request = push.nonPushRequest {
            "not a push: \(request) was answered \(answer)"
        } else {
            "APNs rejected the push: \(answer)"
        }
        findings.append(Finding(rule: id, path: .root, message: message))
    }

    /// The status and reason. A reason APNs does not define is the capture's text, not
    /// ours: it is quoted and escaped, as every text a push carries is shown.
    static func answerText(_ result: PushResult) -> String {
        guard let reason = result.reason, APNsReason(wireValue: reason).status == nil else { return result.summary }
        return "\(result.status) " + JSONWriter.quoted(reason, escaping: .terminalSafe)
    }
}
