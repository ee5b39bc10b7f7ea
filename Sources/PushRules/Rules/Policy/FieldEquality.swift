/// Fields that must hold the same value, such as `session_id` and `aps.thread-id`.
public struct FieldEquality: Sendable, Hashable {
    /// The fields; every one must equal the first.
    public var paths: [JSONPath]
    /// The pushes this applies to.
    public var scope: RuleScope

    /// An equality between two or more fields.
    public init(_ paths: [JSONPath], scope: RuleScope = .all) {
        self.paths = paths
        self.scope = scope
    }
}

/// Equal fields are equal; when one is present, all must be.
struct FieldEqualityRule: PushRule {
    let id: String
    let scope: RuleScope
    let equalities: [FieldEquality]

    func check(_ push: PushInput, into findings: inout [Finding]) {
        for equality in equalities where equality.scope.contains(push) {
            guard let first = equality.paths.first else { continue }
            let values = equality.paths.map { push.payload?.value(at: $0) }
            guard values.contains(where: { $0 != nil }) else { continue }
            for (path, value) in zip(equality.paths, values).dropFirst() where value != values[0] {
                let message = switch (values[0], value) {
                case (nil, _): "\(first) is missing while \(path) is present"
                case (_, nil): "missing; it must equal \(first)"
                default: "must equal \(first)"
                }
                findings.append(Finding(rule: id, path: values[0] == nil ? first : path, message: message,
                                        value: value?.description))
            }
        }
    }
}
