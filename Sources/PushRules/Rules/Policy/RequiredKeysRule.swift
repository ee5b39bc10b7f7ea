/// The keys a policy requires are present (and not `null`).
struct RequiredKeysRule: PushRule {
    let id: String
    let scope: RuleScope
    let required: [ScopedPath]

    func check(_ push: PushInput, into findings: inout [Finding]) {
        for entry in required where entry.scope.contains(push) {
            let value = push.payload?.value(at: entry.path)
            if value == nil || value == .null {
                findings.append(Finding(rule: id, path: entry.path, message: "a required key is missing"))
            }
        }
    }
}

/// A payload path that matters only for the pushes a scope holds for.
public struct ScopedPath: Sendable, Hashable {
    /// The path.
    public var path: JSONPath
    /// When it matters.
    public var scope: RuleScope

    /// A path with a scope (every push by default).
    public init(_ path: JSONPath, scope: RuleScope = .all) {
        self.path = path
        self.scope = scope
    }
}
