/// One fault: which pushes it applies to, how often it fires, and what it does.
///
/// A rule fires on a matching push with `probability` (always when nil), and at most
/// `count` times in all (without limit when nil). With both, each matching push fires
/// with the probability until the rule has fired `count` times.
///
/// ```swift
/// let flaky = FaultRule(
///     id: "flaky", match: FaultMatch(topic: "com.example.app"), probability: 0.5, count: 3,
///     action: .status(500, reason: .internalServerError))
/// ```
public struct FaultRule: Sendable, Hashable, Identifiable {
    /// A stable identifier: letters, digits, `.`, `_` and `-`, so it can sit in a URL path.
    public var id: String
    /// Which pushes the rule applies to.
    public var match: FaultMatch
    /// The chance, 0-1, that a matching push fires the rule; nil means always.
    public var probability: Double?
    /// How many times the rule fires before it is spent; nil means without limit.
    public var count: Int?
    /// What the rule does.
    public var action: FaultAction
    /// Free text for people; the capture shows it instead of the generated summary.
    public var note: String?

    /// Creates a rule.
    public init(
        id: String, match: FaultMatch = .any, probability: Double? = nil, count: Int? = nil,
        action: FaultAction, note: String? = nil
    ) {
        self.id = id
        self.match = match
        self.probability = probability
        self.count = count
        self.action = action
        self.note = note
    }

    /// What the capture records when the rule fires: the note, or the action and match.
    public var summary: String {
        if let note { return note }
        return match.isAny ? action.description : "\(action) for \(match)"
    }

    /// Whether `id` is usable as a rule id: 1-64 letters, digits, `.`, `_` or `-`.
    public static func isValidID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 64 && id.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                true
            default: false
            }
        }
    }
}
