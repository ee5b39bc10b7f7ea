import StrictJSON

/// The values one field may hold: exact values, or strings matching patterns.
///
/// ```swift
/// AllowedValue(path: "aps.alert.title", values: ["Approval needed"],
///              scope: RuleScope(where: [.init(path: "type", equalsAnyOf: ["approval"])]))
/// ```
public struct AllowedValue: Sendable, Hashable {
    /// The field.
    public var path: JSONPath
    /// Exact values allowed.
    public var values: Set<JSONValue>
    /// Patterns a string value may match instead.
    public var patterns: [TextPattern]
    /// The pushes this entry applies to.
    public var scope: RuleScope

    /// An entry; with no values and no patterns, nothing is allowed.
    public init(path: JSONPath, values: Set<JSONValue> = [], patterns: [TextPattern] = [], scope: RuleScope = .all) {
        self.path = path
        self.values = values
        self.patterns = patterns
        self.scope = scope
    }

    /// Whether `value` is allowed.
    func allows(_ value: JSONValue) -> Bool {
        // A few values compare faster than one hash (the usual case: one fixed string).
        if values.count <= 8 ? values.contains(where: { $0 == value }) : values.contains(value) { return true }
        guard case .string(let text) = value, !patterns.isEmpty else { return false }
        return patterns.contains { $0.matches(text) }
    }
}

/// Each field with allowed values holds one of them.
struct AllowedValuesRule: PushRule {
    let id: String
    let scope: RuleScope
    /// Entries grouped by scope, in first-seen order, so that a scope shared by many
    /// entries (every field of one push type) is evaluated once per push.
    let groups: [(scope: RuleScope, entries: [AllowedValue])]

    init(id: String, scope: RuleScope, entries: [AllowedValue]) {
        self.id = id
        self.scope = scope
        var groups: [(scope: RuleScope, entries: [AllowedValue])] = []
        for entry in entries {
            if let index = groups.firstIndex(where: { $0.scope == entry.scope }) {
                groups[index].entries.append(entry)
            } else {
                groups.append((entry.scope, [entry]))
            }
        }
        self.groups = groups
    }

    func check(_ push: PushInput, into findings: inout [Finding]) {
        guard let payload = push.payload else { return }
        for group in groups where group.scope.contains(push) {
            check(payload, group.entries, into: &findings)
        }
    }

    private func check(_ payload: JSONValue, _ entries: [AllowedValue], into findings: inout [Finding]) {
        for entry in entries {
            guard let value = payload.value(at: entry.path), !entry.allows(value) else { continue }
            let count = entry.values.count + entry.patterns.count
            findings.append(Finding(
                rule: id, path: entry.path,
                message: value.stringValue == nil && !entry.values.contains(where: { $0.stringValue == nil })
                    ? "must be a string from the allowed values, found \(value.typeName)"
                    : count == 1 ? "not the allowed value" : "not one of the \(count) allowed values",
                value: value.description))
        }
    }
}
