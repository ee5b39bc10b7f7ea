import APNsCore
import HermesContract
import StrictJSON

/// The built-in `hermes` profile: the gateway → APNs request of the Hermes push contract,
/// section 3, exactly. Every constant comes from `HermesContract`, which the gateway and the
/// app also use, so the three cannot drift apart.
///
/// - Headers: `apns-push-type: alert`, `apns-priority: 10` (sent), an `apns-id`, an
///   `apns-expiration` after sending and at most the type's interval later, and
///   `apns-collapse-id` derived from type and session (``HermesCollapseID``).
/// - Payload: exactly `aps.alert.title`, `aps.alert.body`, `aps.sound`, `aps.thread-id`,
///   `aps.category`, `aps.badge` (approvals only), `session_id`, `type`; the type's fixed
///   title, body and `HERMES_<TYPE>` category; sound `default`; `session_id` matching
///   ``HermesSessionID`` and equal to `aps.thread-id`; no string that looks like content.
enum HermesProfile {
    /// Clock skew allowed between the gateway that sets `apns-expiration` and the mock that
    /// stamps the arrival time.
    static let expirationSlack: Int64 = 60

    static let typePath: JSONPath = "type"
    static let sessionPath: JSONPath = "session_id"
    static let titlePath: JSONPath = "aps.alert.title"
    static let bodyPath: JSONPath = "aps.alert.body"
    static let soundPath: JSONPath = "aps.sound"
    static let threadPath: JSONPath = "aps.thread-id"
    static let categoryPath: JSONPath = "aps.category"
    static let badgePath: JSONPath = "aps.badge"

    static func rules(now: Int64?) -> [any PushRule] {
        policy.rules(now: now) + [topic, collapseID]
    }

    /// The pushes of one trigger type.
    static func scope(_ type: HermesPushType) -> RuleScope {
        RuleScope(where: [.init(path: typePath, equalsAnyOf: [.string(type.rawValue)])])
    }

    static let policy: Policy = {
        var policy = Policy(name: "hermes")
        policy.headers = [HeaderRequirement(
            pushTypes: [HermesNotification.pushType], priorities: [HermesNotification.priority], requiresPriority: true,
            requiresExpiration: true, requiresCollapseID: true, requiresAPNsID: true)]
        for type in HermesPushType.allCases {
            policy.headers.append(HeaderRequirement(
                maximumExpirationDelay: type.expirationInterval + expirationSlack, scope: scope(type)))
        }
        let present = [titlePath, bodyPath, soundPath, threadPath, categoryPath, sessionPath, typePath]
        policy.allowedKeys = present + [badgePath]
        policy.requiredKeys = present.map { ScopedPath($0) }
        policy.allowedValues = [
            AllowedValue(path: typePath, values: Set(HermesPushType.allCases.map { .string($0.rawValue) })),
            AllowedValue(path: soundPath, values: [.string(HermesNotification.sound)]),
        ]
        for type in HermesPushType.allCases {
            policy.allowedValues += [
                AllowedValue(path: titlePath, values: [.string(type.title)], scope: scope(type)),
                AllowedValue(path: bodyPath, values: [.string(type.body)], scope: scope(type)),
                AllowedValue(path: categoryPath, values: [.string(type.category)], scope: scope(type)),
            ]
        }
        policy.badge = HermesPushType.allCases.map { type in
            BadgeRequirement(presence: type.carriesBadge ? .required : .forbidden, scope: scope(type))
        }
        // The contract's pattern, compiled for the byte matcher (a test checks it agrees with
        // HermesSessionID.isValid, which is generic and several times slower per call).
        let sessionMatcher: IdentifierField.Matcher = (try? TextPattern(HermesSessionID.pattern)).map { .pattern($0) }
            ?? .function(description: HermesSessionID.pattern) { HermesSessionID.isValid($0) }
        policy.identifiers = [IdentifierField(path: sessionPath, matcher: sessionMatcher)]
        policy.equalFields = [FieldEquality([sessionPath, threadPath])]
        policy.leaks = LeakPolicy()
        return policy
    }()

    /// `apns-topic` is set, and is a bare bundle ID (an alert push's topic carries no suffix).
    /// Which bundle ID is the deployment's choice; a policy's `headers.topics` pins it.
    static let topic = FunctionRule(id: "hermes.topic") { push, findings in
        guard let topic = push.headers.topic, !topic.isEmpty else {
            findings.append(Finding(rule: "hermes.topic", path: .header(APNsHeaderName.topic), message: "apns-topic must be set"))
            return
        }
        if APNsPushType.alert.bundleID(fromTopic: topic) == nil {
            findings.append(Finding(
                rule: "hermes.topic", path: .header(APNsHeaderName.topic),
                message: "apns-topic must be the app's bundle ID, without a push-type suffix", value: topic))
        }
    }

    /// `apns-collapse-id` is the one ``HermesCollapseID`` derives from type and session.
    static let collapseID = FunctionRule(id: "hermes.collapse-id") { push, findings in
        guard let typeText = push.payload?.value(at: typePath)?.stringValue,
            let type = HermesPushType(rawValue: typeText),
            let session = push.payload?.value(at: sessionPath)?.stringValue,
            let collapseID = push.headers.collapseID
        else { return }
        if collapseID != HermesCollapseID.make(type: type, sessionID: session) {
            findings.append(Finding(
                rule: "hermes.collapse-id", path: .header(APNsHeaderName.collapseID),
                message: "apns-collapse-id must be derived from type and session_id (HermesCollapseID)", value: collapseID))
        }
    }
}
