import StrictJSON

/// One fault rule as `GET /faults` lists it.
public struct MockFault: Sendable, Hashable {
    /// The rule's id.
    public let id: String
    /// How often the rule has fired.
    public let fired: Int
    /// How many firings a rule with a `count` has left; nil for a rule without one.
    public let remaining: Int?
    /// The rule's whole JSON form, as the configuration file's `faults` section has it.
    public let rule: JSONValue
}
