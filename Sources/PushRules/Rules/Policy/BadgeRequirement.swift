import APNsCore
import StrictJSON

/// What a policy says about `aps.badge` for some pushes.
///
/// ```swift
/// // Approvals carry a badge; nothing else does.
/// BadgeRequirement(presence: .required, scope: RuleScope(where: [.init(path: "type", equalsAnyOf: ["approval"])]))
/// ```
public struct BadgeRequirement: Sendable, Hashable {
    /// Whether the badge must, may or must not be there.
    public enum Presence: String, Sendable, Hashable {
        case required, optional, forbidden
    }

    /// Whether the pushes in scope must, may or must not carry a badge.
    public var presence: Presence
    /// The largest badge allowed, if any.
    public var maximum: Int64?
    /// The pushes this applies to.
    public var scope: RuleScope

    /// A requirement; by default the badge is optional and unbounded.
    public init(presence: Presence = .optional, maximum: Int64? = nil, scope: RuleScope = .all) {
        self.presence = presence
        self.maximum = maximum
        self.scope = scope
    }
}

/// `aps.badge` is present where required, absent where forbidden, and an integer from 0 to
/// the maximum wherever it appears.
struct BadgeRule: PushRule {
    let id: String
    let scope: RuleScope
    let requirements: [BadgeRequirement]

    static let path = JSONPath(components: [.key(APNsPayloadKey.aps), .key(APNsPayloadKey.badge)])

    func check(_ push: PushInput, into findings: inout [Finding]) {
        let badge = push.payload?.value(at: Self.path)
        if let badge {
            guard case .integer(let count) = badge else {
                findings.append(Finding(
                    rule: id, path: Self.path, message: "badge must be an integer, found \(badge.typeName)",
                    value: badge.description))
                return
            }
            if count < 0 {
                findings.append(Finding(rule: id, path: Self.path, message: "badge must be 0 or more", value: badge.description))
            }
        }
        for requirement in requirements where requirement.scope.contains(push) {
            switch (requirement.presence, badge) {
            case (.required, nil):
                findings.append(Finding(rule: id, path: Self.path, message: "this push must carry a badge"))
            case (.forbidden, let badge?):
                findings.append(Finding(
                    rule: id, path: Self.path, message: "this push must not carry a badge", value: badge.description))
            default:
                break
            }
            if let maximum = requirement.maximum, case .integer(let count)? = badge, count > maximum {
                findings.append(Finding(
                    rule: id, path: Self.path, message: "badge is above the maximum of \(maximum)", value: String(count)))
            }
        }
    }
}
