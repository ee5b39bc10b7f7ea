import PushRules

/// push-inspect's `hermes` profile (module PushRules) over one captured push, the same
/// rules `push-inspect check --profile hermes` applies to a capture.
enum HermesProfileCheck {
    private static let rules = RuleSet(profiles: [.hermes, .apple])

    /// The profile's findings, one line each (values left out: they may be what must not leak).
    static func problems(_ push: CapturedPush) -> [String] {
        let headers = PushHeaders(
            pushType: push.header("apns-push-type"), topic: push.header("apns-topic"),
            priority: push.header("apns-priority").flatMap { Int($0) },
            expiration: push.header("apns-expiration").flatMap { Int64($0) },
            collapseID: push.header("apns-collapse-id"), apnsID: push.header("apns-id"), deviceToken: push.deviceToken)
        let input = PushInput(headers: headers, payload: push.payload, result: PushResult(status: push.status, reason: push.reason),
                              sentAt: push.receivedAt, source: PushSource(name: "gateway push"))
        return rules.check(input).findings.map { "push-inspect: \($0)" }
    }

    static let note = "checked with push-inspect's hermes and apple profiles and against contract §3 directly"
}
