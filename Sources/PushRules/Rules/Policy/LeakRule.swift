import StrictJSON

/// No string in the payload looks like content: each detector that fires on a string is a
/// finding naming the string's path and the detector.
struct LeakRule: PushRule {
    let id: String
    let scope: RuleScope
    let scanner: LeakScanner
    /// Paths (object keys only) whose strings are not scanned, such as a deep-link URL field.
    let exempt: Set<[String]>

    func check(_ push: PushInput, into findings: inout [Finding]) {
        guard let payload = push.payload else { return }
        var stack: [JSONPath.Component] = []
        let firstNew = findings.count
        walk(payload, &stack, &findings)
        // Dictionary order varies between runs; sorted by path, the findings do not.
        if findings.count - firstNew > 1 {
            findings[firstNew...].sort { ($0.path.description, $0.detector ?? "") < ($1.path.description, $1.detector ?? "") }
        }
    }

    private func walk(_ value: JSONValue, _ stack: inout [JSONPath.Component], _ findings: inout [Finding]) {
        switch value {
        case .string(let text):
            if !exempt.isEmpty, isExempt(stack) { return }
            for detector in scanner.scan(text) {
                findings.append(Finding(
                    rule: id, detector: detector.rawValue, path: JSONPath(components: stack),
                    message: detector.message, value: value.description))
            }
        case .object(let members):
            for (key, member) in members {
                stack.append(.key(key))
                walk(member, &stack, &findings)
                stack.removeLast()
            }
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                stack.append(.index(index))
                walk(element, &stack, &findings)
                stack.removeLast()
            }
        default:
            break
        }
    }

    private func isExempt(_ stack: [JSONPath.Component]) -> Bool {
        exempt.contains(stack.compactMap { if case .key(let key) = $0 { key } else { nil } })
    }
}
