/// One rule a push breaks: which rule (and detector), where, and why.
///
/// The message never holds the offending value itself: payloads may carry what must not be
/// printed (that is what the privacy rules look for). The value is kept in ``value`` and
/// shown only when a person asks (`--show-values`).
public struct Finding: Sendable, Hashable, CustomStringConvertible {
    /// The rule's id, such as `apple.badge` or `hermes.allowed-keys`.
    public var rule: String
    /// The leak detector that fired (`email`, `jwt`, …), for leak findings.
    public var detector: String?
    /// Where in the push.
    public var path: JSONPath
    /// What is wrong, for people, without the value.
    public var message: String
    /// The offending value, when there is one: a payload value as compact JSON, a header's
    /// value as the text sent. Either is the sender's text; escape it before showing it.
    public var value: String?

    /// A finding.
    public init(rule: String, detector: String? = nil, path: JSONPath, message: String, value: String? = nil) {
        self.rule = rule
        self.detector = detector
        self.path = path
        self.message = message
        self.value = value
    }

    /// `rule[detector] at path: message`.
    public var description: String {
        "\(rule)\(detector.map { "[\($0)]" } ?? "") at \(path): \(message)"
    }
}
