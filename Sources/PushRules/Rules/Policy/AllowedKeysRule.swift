import StrictJSON

/// Every key in the payload is one the policy lists; any other key fails.
struct AllowedKeysRule: PushRule {
    let id: String
    let scope: RuleScope
    let tree: KeyTree

    init(id: String, scope: RuleScope, allowed: [JSONPath]) {
        self.id = id
        self.scope = scope
        self.tree = KeyTree.build(allowed)
    }

    func check(_ push: PushInput, into findings: inout [Finding]) {
        guard let payload = push.payload else { return }
        let firstNew = findings.count
        var stack: [JSONPath.Component] = []
        walk(payload, tree, &stack, &findings)
        // Dictionary order varies between runs; sorted by path, the findings do not.
        if findings.count - firstNew > 1 {
            findings[firstNew...].sort { $0.path.description < $1.path.description }
        }
    }

    private func walk(_ value: JSONValue, _ node: KeyTree, _ stack: inout [JSONPath.Component], _ findings: inout [Finding]) {
        switch value {
        case .object(let members):
            for (key, member) in members {
                guard let next = node.child(key) else {
                    findings.append(Finding(
                        rule: id, path: JSONPath(components: stack + [.key(key)]),
                        message: "this key is not in the allowed keys"))
                    continue
                }
                if next.isOpen { continue }
                stack.append(.key(key))
                walk(member, next, &stack, &findings)
                stack.removeLast()
            }
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                stack.append(.index(index))
                walk(element, node, &stack, &findings)
                stack.removeLast()
            }
        default:
            break
        }
    }
}
