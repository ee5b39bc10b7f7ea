/// Where a push came from, so that a finding can point a person at it.
public struct PushSource: Sendable, Hashable, CustomStringConvertible {
    /// The file (or `-` for standard input, or a control-API URL).
    public var name: String
    /// The 1-based line in a capture file; nil for single payloads.
    public var line: Int?
    /// The capture record's sequence number, when there is one.
    public var sequence: UInt64?
    /// The `apns-id` APNs answered: what names the push to its sender, in its logs and in
    /// APNs' own tools. Nil for a bare payload.
    public var apnsID: String?
    /// The APNs environment the push was sent to (`production`, `sandbox`), when known.
    public var environment: String?

    /// A source; all but the name are optional.
    public init(name: String, line: Int? = nil, sequence: UInt64? = nil, apnsID: String? = nil, environment: String? = nil) {
        self.name = name
        self.line = line
        self.sequence = sequence
        self.apnsID = apnsID
        self.environment = environment
    }

    /// `file:line`, or `url#seq`, or just the name.
    public var description: String {
        if let line { return "\(name):\(line)" }
        if let sequence { return "\(name)#\(sequence)" }
        return name
    }
}
