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
        if values.contains(value) { return true }
        guard case .string(let text) = value, !patterns.isEmpty else { return false }
        return patterns.contains { $0.matches(text) }
    }
}

/// Each field with allowed values holds one of them.
struct AllowedValuesRule: PushRule {
    let id: String
    let scope: RuleScope
    let entries: [AllowedValue]

    func check(_ push: PushInput, into findings: inout [Finding]) {
        guard let payload = push.payload else { return }
        for entry in entries where entry.scope.contains(push) {
            guard let value = payload.value(at: entry.path), !entry.allows(value) else { continue }
            let count = entry.values.count + entry.patterns.count
            findings.append(Finding(
                rule: id, path: entry.path,
                message: value.stringValue == nil && !entry.values.contains(where: { $0.stringValue == nil })
                    ? "must be a string from the allowed values, found \(value.typeName)"
                    : "not one of the \(count) allowed value\(count == 1 ? "" : "s")",
                value: value.description))
        }
    }
}
