/// The verdict on one numbered check.
public struct ConformanceCheckResult: Sendable, Hashable {
    /// 1 to 7: 1 to 6 as in the list, 7 added for the plugin's timeout.
    public var number: Int
    /// What it checks, in a few words.
    public var title: String
    /// Whether every expectation held.
    public var passed: Bool
    /// What went wrong, or notes on what was checked; one line each.
    public var details: [String]
    /// How long it took, in seconds.
    public var seconds: Double

    public init(number: Int, title: String, passed: Bool, details: [String], seconds: Double) {
        self.number = number
        self.title = title
        self.passed = passed
        self.details = details
        self.seconds = seconds
    }
}
