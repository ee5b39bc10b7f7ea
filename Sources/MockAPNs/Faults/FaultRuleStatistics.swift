/// How often a rule has fired since it was added or last replaced.
public struct FaultRuleStatistics: Sendable, Hashable {
    /// The rule's id.
    public var id: String
    /// Pushes the rule fired on.
    public var fired: Int
    /// Firings left before the rule is spent; nil for a rule without a count.
    public var remaining: Int?

    /// Creates statistics for a rule.
    public init(id: String, fired: Int, remaining: Int?) {
        self.id = id
        self.fired = fired
        self.remaining = remaining
    }
}
