/// What checking one push found.
public struct PushCheckResult: Sendable, Hashable {
    /// The push checked.
    public var source: PushSource
    /// The ids of the rules whose scope held, in rule-set order (for one JUnit test case each).
    public var rulesApplied: [String]
    /// What failed, in rule order.
    public var findings: [Finding]

    /// A result.
    public init(source: PushSource, rulesApplied: [String], findings: [Finding]) {
        self.source = source
        self.rulesApplied = rulesApplied
        self.findings = findings
    }

    /// Whether every rule passed.
    public var passed: Bool { findings.isEmpty }
}
