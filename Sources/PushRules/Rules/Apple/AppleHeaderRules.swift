import APNsCore
import StrictJSON

/// The header rules of the `apple` profile: what APNs rejects or handles differently
/// because of a request header.
enum AppleHeaderRules {
    static func all(now: Int64?) -> [any PushRule] {
        [pushType, priority, backgroundPriority, liveActivityPriority, topicSuffix, collapseID, apnsID, expiration(now: now)]
    }

    /// `apns-push-type` is present and one APNs knows.
    static let pushType = FunctionRule(id: "apple.push-type") { push, findings in
        guard let type = push.headers.pushType else {
            findings.append(Finding(
                rule: "apple.push-type", path: .header(APNsHeaderName.pushType),
                message: "no apns-push-type; watchOS requires it and APNs may delay or drop pushes without it"))
            return
        }
        if push.headers.channelID != nil, !push.isBroadcastOfLiveActivity {
            findings.append(Finding(
                rule: "apple.push-type", path: .header(APNsHeaderName.pushType),
                message: "a broadcast is a liveactivity push (InvalidPushType)", value: type))
        } else if APNsPushType(rawValue: type) == nil, !push.isBroadcastOfLiveActivity {
            findings.append(Finding(
                rule: "apple.push-type", path: .header(APNsHeaderName.pushType),
                message: "not a push type APNs knows (InvalidPushType)", value: type))
        }
    }

    /// `apns-id`, when sent, is a canonical UUID in lowercase, as Apple documents it. APNs
    /// answers anything else `BadMessageId`; the mock accepts uppercase with a lint, since
    /// clients send both, and so it is a finding here too.
    static let apnsID = FunctionRule(id: "apple.apns-id") { push, findings in
        guard let id = push.headers.apnsID else { return }
        if !APNsIDGenerator.isCanonicalUUID(id) {
            findings.append(Finding(
                rule: "apple.apns-id", path: .header(APNsHeaderName.id),
                message: "apns-id must be a UUID such as 123e4567-e89b-12d3-a456-426614174000 (BadMessageId)", value: id))
        } else if id.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "F") }) {
            findings.append(Finding(
                rule: "apple.apns-id", path: .header(APNsHeaderName.id),
                message: "Apple documents apns-id as a lowercase UUID", value: id))
        }
    }

    /// `apns-priority` is 10, 5 or 1.
    static let priority = FunctionRule(id: "apple.priority") { push, findings in
        let sent: String
        if let text = push.headers.unparsedPriority {
            sent = text
        } else if let priority = push.headers.priority, APNsPriority(rawValue: priority) == nil {
            sent = String(priority)
        } else {
            return
        }
        findings.append(Finding(
            rule: "apple.priority", path: .header(APNsHeaderName.priority),
            message: "apns-priority must be 10, 5 or 1 (BadPriority)", value: sent))
    }

    /// Background pushes go at priority 5; 10 (also the default when absent) is an error.
    /// That holds for a push sent without `apns-push-type` whose `aps` has
    /// `content-available` and nothing to show, which is a background push too (Apple's
    /// older documentation: priority 10 "is an error" for a push that "contains only the
    /// content-available key"; the mock infers `background` for it).
    static let backgroundPriority = FunctionRule(
        id: "apple.background-priority", scope: RuleScope(pushTypes: [APNsPushType.background.rawValue])
    ) { push, findings in
        // A priority that is not a number is apple.priority's finding, not an absent one.
        guard push.headers.unparsedPriority == nil else { return }
        let priority = push.headers.priority ?? APNsPriority.immediately.rawValue
        if priority != APNsPriority.consideringDevicePower.rawValue {
            let what = push.headers.pushType == nil
                ? "without apns-push-type, a push whose aps has content-available and no alert, sound or badge is a background push; it"
                : "a background push"
            findings.append(Finding(
                rule: "apple.background-priority", path: .header(APNsHeaderName.priority),
                message: push.headers.priority == nil ? "\(what) needs apns-priority 5; absent means 10" : "\(what) needs apns-priority 5",
                value: String(priority)))
        }
    }

    /// Live Activity pushes go at priority 5 or 10, as Apple documents (the mock accepts 1
    /// with a lint, since Apple names no error for it).
    static let liveActivityPriority = FunctionRule(
        id: "apple.liveactivity-priority", scope: RuleScope(pushTypes: [APNsPushType.liveactivity.rawValue])
    ) { push, findings in
        if push.headers.priority == APNsPriority.prioritizingPowerSavings.rawValue {
            findings.append(Finding(
                rule: "apple.liveactivity-priority", path: .header(APNsHeaderName.priority),
                message: "a Live Activity push needs apns-priority 5 or 10", value: String(APNsPriority.prioritizingPowerSavings.rawValue)))
        }
    }

    /// The topic carries the suffix its push type needs (`.voip`, `.push-type.liveactivity`, …).
    /// A broadcast has no topic: its bundle ID is in the path.
    static let topicSuffix = FunctionRule(id: "apple.topic-suffix") { push, findings in
        guard push.headers.channelID == nil, let typeText = push.headers.pushType, let type = APNsPushType(rawValue: typeText), type != .mdm else { return }
        guard let topic = push.headers.topic, !topic.isEmpty else {
            findings.append(Finding(
                rule: "apple.topic-suffix", path: .header(APNsHeaderName.topic),
                message: "no apns-topic; token-based connections need it (MissingTopic)"))
            return
        }
        if type.bundleID(fromTopic: topic) == nil {
            let expected = type.topicSuffix.isEmpty ? "the bundle ID without a push-type suffix" : "a topic ending in \(type.topicSuffix)"
            findings.append(Finding(
                rule: "apple.topic-suffix", path: .header(APNsHeaderName.topic),
                message: "\(type.withArticle) push needs \(expected)", value: topic))
        }
    }

    /// The most bytes `apns-collapse-id` may have.
    static let maximumCollapseIDBytes = 64

    /// `apns-collapse-id` is at most 64 bytes.
    static let collapseID = FunctionRule(id: "apple.collapse-id") { push, findings in
        guard let collapseID = push.headers.collapseID else { return }
        let bytes = collapseID.utf8.count
        if bytes > maximumCollapseIDBytes {
            findings.append(Finding(
                rule: "apple.collapse-id", path: .header(APNsHeaderName.collapseID),
                message: "apns-collapse-id is \(bytes) bytes; APNs allows \(maximumCollapseIDBytes) (BadCollapseId)",
                value: collapseID))
        }
    }

    /// `apns-expiration` is not already in the past when the push is sent (0, "once", is fine).
    static func expiration(now: Int64?) -> FunctionRule {
        FunctionRule(id: "apple.expiration") { push, findings in
            if let text = push.headers.unparsedExpiration {
                findings.append(Finding(
                    rule: "apple.expiration", path: .header(APNsHeaderName.expiration),
                    message: "apns-expiration must be UNIX seconds, 0 or more (BadExpirationDate)", value: text))
                return
            }
            guard let expiration = push.headers.expiration else { return }
            if expiration < 0 {
                findings.append(Finding(
                    rule: "apple.expiration", path: .header(APNsHeaderName.expiration),
                    message: "apns-expiration must be UNIX seconds, 0 or more (BadExpirationDate)", value: String(expiration)))
                return
            }
            guard expiration != 0 else { return }
            let reference = push.sentAt ?? now ?? Int64(Clock.unixSeconds())
            if expiration < reference {
                findings.append(Finding(
                    rule: "apple.expiration", path: .header(APNsHeaderName.expiration),
                    message: "apns-expiration is \(reference - expiration) s before the push was sent; APNs will not store it",
                    value: String(expiration)))
            }
        }
    }
}
