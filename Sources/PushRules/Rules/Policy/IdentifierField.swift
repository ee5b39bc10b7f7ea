/// A field that identifies what a push is about (a session, a thread): present, non-empty
/// and of the form its pattern sets. Tapping the notification opens what it names.
public struct IdentifierField: Sendable {
    /// How a value is recognised.
    public enum Matcher: Sendable {
        /// A ``TextPattern``.
        case pattern(TextPattern)
        /// A function shared with the code that makes the ids (such as `HermesSessionID.isValid`),
        /// and the pattern it implements, for messages.
        case function(description: String, @Sendable (String) -> Bool)

        func matches(_ text: String) -> Bool {
            switch self {
            case .pattern(let pattern): pattern.matches(text)
            case .function(_, let function): function(text)
            }
        }

        var description: String {
            switch self {
            case .pattern(let pattern): pattern.source
            case .function(let description, _): description
            }
        }
    }

    /// The field.
    public var path: JSONPath
    /// What its value must look like.
    public var matcher: Matcher
    /// Whether a push without it fails.
    public var isRequired: Bool
    /// The pushes this applies to.
    public var scope: RuleScope

    /// An identifier field, required by default.
    public init(path: JSONPath, matcher: Matcher, isRequired: Bool = true, scope: RuleScope = .all) {
        self.path = path
        self.matcher = matcher
        self.isRequired = isRequired
        self.scope = scope
    }
}

/// Identifier fields are present, strings, non-empty and match their pattern.
struct IdentifierRule: PushRule {
    let id: String
    let scope: RuleScope
    let fields: [IdentifierField]

    func check(_ push: PushInput, into findings: inout [Finding]) {
        for field in fields where field.scope.contains(push) {
            guard let value = push.payload?.value(at: field.path), value != .null else {
                if field.isRequired {
                    findings.append(Finding(rule: id, path: field.path, message: "the identifier is missing"))
                }
                continue
            }
            guard case .string(let text) = value else {
                findings.append(Finding(
                    rule: id, path: field.path, message: "the identifier must be a string, found \(value.typeName)",
                    value: value.description))
                continue
            }
            if text.isEmpty {
                findings.append(Finding(rule: id, path: field.path, message: "the identifier is empty"))
            } else if !field.matcher.matches(text) {
                findings.append(Finding(
                    rule: id, path: field.path, message: "the identifier does not match \(field.matcher.description)",
                    value: value.description))
            }
        }
    }
}
