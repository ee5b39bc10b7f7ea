/// One check over one push.
///
/// A rule appends a ``Finding`` for each problem it sees and nothing otherwise. Its
/// ``scope`` says which pushes it applies to; the ``RuleSet`` checks the scope first, so a
/// rule's `check` need not.
public protocol PushRule: Sendable {
    /// A stable id for reports and JUnit, `profile.rule` (`apple.badge`).
    var id: String { get }
    /// The pushes the rule applies to.
    var scope: RuleScope { get }
    /// Appends a finding for each way `push` breaks the rule.
    func check(_ push: PushInput, into findings: inout [Finding])
}
