/// A rule whose check is a function: how the built-in profiles define most of their rules.
public struct FunctionRule: PushRule {
    public let id: String
    public let scope: RuleScope
    private let body: @Sendable (PushInput, inout [Finding]) -> Void

    /// A rule with id `id` that runs `body` on the pushes `scope` holds for.
    public init(id: String, scope: RuleScope = .all, _ body: @escaping @Sendable (PushInput, inout [Finding]) -> Void) {
        self.id = id
        self.scope = scope
        self.body = body
    }

    public func check(_ push: PushInput, into findings: inout [Finding]) {
        body(push, &findings)
    }
}
