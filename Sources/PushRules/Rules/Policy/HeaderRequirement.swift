import APNsCore

/// What a policy requires of the request headers.
public struct HeaderRequirement: Sendable, Hashable {
    /// Allowed `apns-push-type` values; nil allows any.
    public var pushTypes: Set<String>?
    /// Allowed `apns-priority` values; nil allows any (an absent header counts as 10, as at APNs).
    public var priorities: Set<Int>?
    /// Whether `apns-priority` must be sent rather than left to APNs' default.
    public var requiresPriority: Bool
    /// Allowed `apns-topic` values; nil allows any.
    public var topics: Set<String>?
    /// Whether `apns-expiration` must be set to a time after the push was sent.
    public var requiresExpiration: Bool
    /// The latest `apns-expiration` allowed, in seconds after the push was sent.
    public var maximumExpirationDelay: Int64?
    /// Whether `apns-collapse-id` must be set.
    public var requiresCollapseID: Bool
    /// Whether the sender must set `apns-id` (a canonical UUID).
    public var requiresAPNsID: Bool
    /// The pushes this applies to.
    public var scope: RuleScope

    /// A requirement; by default it requires nothing.
    public init(
        pushTypes: Set<String>? = nil, priorities: Set<Int>? = nil, requiresPriority: Bool = false,
        topics: Set<String>? = nil,
        requiresExpiration: Bool = false, maximumExpirationDelay: Int64? = nil, requiresCollapseID: Bool = false,
        requiresAPNsID: Bool = false, scope: RuleScope = .all
    ) {
        self.pushTypes = pushTypes
        self.priorities = priorities
        self.requiresPriority = requiresPriority
        self.topics = topics
        self.requiresExpiration = requiresExpiration
        self.maximumExpirationDelay = maximumExpirationDelay
        self.requiresCollapseID = requiresCollapseID
        self.requiresAPNsID = requiresAPNsID
        self.scope = scope
    }
}

/// The headers meet the policy's requirements.
struct HeaderRule: PushRule {
    let id: String
    let scope: RuleScope
    let requirements: [HeaderRequirement]
    let now: Int64?

    func check(_ push: PushInput, into findings: inout [Finding]) {
        let headers = push.headers
        for requirement in requirements where requirement.scope.contains(push) {
            if let pushTypes = requirement.pushTypes, !headers.pushType.map(pushTypes.contains).orFalse {
                findings.append(Finding(
                    rule: id, path: .header(APNsHeaderName.pushType),
                    message: "apns-push-type must be \(pushTypes.sorted().joined(separator: " or "))", value: headers.pushType))
            }
            if let priorities = requirement.priorities {
                let priority = headers.priority ?? APNsPriority.immediately.rawValue
                if !priorities.contains(priority) {
                    findings.append(Finding(
                        rule: id, path: .header(APNsHeaderName.priority),
                        message: "apns-priority must be \(priorities.sorted().map(String.init).joined(separator: " or "))",
                        value: String(priority)))
                }
            }
            if requirement.requiresPriority, headers.priority == nil {
                findings.append(Finding(rule: id, path: .header(APNsHeaderName.priority), message: "apns-priority must be set"))
            }
            if let topics = requirement.topics, !headers.topic.map(topics.contains).orFalse {
                findings.append(Finding(
                    rule: id, path: .header(APNsHeaderName.topic), message: "apns-topic is not one of the allowed topics",
                    value: headers.topic))
            }
            checkExpiration(push, requirement, into: &findings)
            if requirement.requiresCollapseID, (headers.collapseID ?? "").isEmpty {
                findings.append(Finding(rule: id, path: .header(APNsHeaderName.collapseID), message: "apns-collapse-id must be set"))
            }
            if requirement.requiresAPNsID {
                if let apnsID = headers.apnsID {
                    if !APNsIDGenerator.isCanonicalUUID(apnsID) {
                        findings.append(Finding(
                            rule: id, path: .header(APNsHeaderName.id), message: "apns-id must be a canonical UUID (8-4-4-4-12 hex digits)",
                            value: apnsID))
                    }
                } else {
                    findings.append(Finding(rule: id, path: .header(APNsHeaderName.id), message: "apns-id must be set"))
                }
            }
        }
    }

    private func checkExpiration(_ push: PushInput, _ requirement: HeaderRequirement, into findings: inout [Finding]) {
        guard requirement.requiresExpiration || requirement.maximumExpirationDelay != nil else { return }
        guard let expiration = push.headers.expiration else {
            if requirement.requiresExpiration {
                findings.append(Finding(rule: id, path: .header(APNsHeaderName.expiration), message: "apns-expiration must be set"))
            }
            return
        }
        let sent = push.sentAt ?? now ?? Int64(Clock.unixSeconds())
        if requirement.requiresExpiration, expiration <= sent {
            findings.append(Finding(
                rule: id, path: .header(APNsHeaderName.expiration),
                message: "apns-expiration must be after the time the push was sent", value: String(expiration)))
        }
        if let delay = requirement.maximumExpirationDelay, expiration > sent + delay {
            findings.append(Finding(
                rule: id, path: .header(APNsHeaderName.expiration),
                message: "apns-expiration is \(expiration - sent) s after sending; at most \(delay) s is allowed",
                value: String(expiration)))
        }
    }
}

extension Optional<Bool> {
    /// The value, or false when nil.
    fileprivate var orFalse: Bool { self ?? false }
}
