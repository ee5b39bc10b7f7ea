extension FaultRule {
    /// Statuses a `status` action may answer with: APNs' error statuses.
    public static let statusRange: ClosedRange<Int> = 400...599
    /// The longest delay a rule may impose: clients time out long before.
    public static let maximumDelay = Duration.seconds(3600)
    /// The longest `reason` a rule may answer with, in UTF-8 bytes. APNs' are short words;
    /// this leaves room for made-up ones while a GOAWAY's debug data stays far within one
    /// frame (a reason of 16 KiB could not be sent there at all).
    public static let maximumReasonLength = 256
    /// The longest `description`, in UTF-8 bytes: it goes into the capture record of every
    /// push the rule fires for.
    public static let maximumNoteLength = 1024

    /// Checks the ranges JSON decoding checks, for rules built in Swift.
    ///
    /// - Parameter path: the JSON path to name in errors, such as `faults[2]`.
    /// - Throws: ``ConfigurationError`` naming the offending field.
    public func validate(path: String = "") throws(ConfigurationError) {
        func fail(_ field: String, _ message: String) -> ConfigurationError {
            ConfigurationError(.invalidValue, path: JSONField.path(path, field), message)
        }
        guard Self.isValidID(id) else {
            throw fail(FaultRuleKey.id, "expected 1-64 letters, digits, '.', '_' or '-', found \"\(id)\"")
        }
        if let probability, !(0...1).contains(probability) {
            throw fail(FaultRuleKey.probability, "expected a number 0-1, found \(probability)")
        }
        if let count, count < 1 { throw fail(FaultRuleKey.count, "expected an integer of at least 1, found \(count)") }
        try checkLengths(path: path)
        let actionPath = JSONField.path(path, FaultRuleKey.action)
        func actionFail(_ field: String, _ message: String) -> ConfigurationError {
            ConfigurationError(.invalidValue, path: JSONField.path(actionPath, field), message)
        }
        switch action {
        case .status(let status, _):
            guard Self.statusRange.contains(status) else {
                throw actionFail(FaultActionKey.status, "expected an integer 400-599, found \(status)")
            }
        case .delay(let delay):
            guard delay >= .zero, delay <= Self.maximumDelay else {
                throw actionFail(FaultActionKey.milliseconds, "expected an integer 0-3600000, found \(delay.faultMilliseconds)")
            }
        case .rateLimit(let limit):
            guard limit.limit >= 1 else {
                throw actionFail(FaultActionKey.limit, "expected an integer of at least 1, found \(limit.limit)")
            }
            guard limit.window > .zero else {
                throw actionFail(FaultActionKey.windowSeconds, "expected a positive number, found \(limit.window)")
            }
        case .unavailable(let reason):
            guard FaultAction.unavailableReasons.contains(reason) else {
                throw actionFail(FaultActionKey.reason, "expected \"ServiceUnavailable\" or \"Shutdown\", found \"\(reason.wireValue)\"")
            }
        case .resetStream, .closeConnection, .goAway:
            break
        }
    }

    /// The bounds on the rule's own texts, which JSON decoding checks too: the description
    /// (``maximumNoteLength``) and the reason it answers or sends with GOAWAY
    /// (``maximumReasonLength``).
    func checkLengths(path: String) throws(ConfigurationError) {
        if let note, note.utf8.count > Self.maximumNoteLength {
            throw ConfigurationError(.invalidValue, path: JSONField.path(path, FaultRuleKey.note),
                                     "expected at most \(Self.maximumNoteLength) bytes, found \(note.utf8.count)")
        }
        switch action {
        case .status(_, let reason), .goAway(_, let reason?):
            let length = reason.wireValue.utf8.count
            guard length <= Self.maximumReasonLength else {
                throw ConfigurationError(
                    .invalidValue, path: JSONField.path(JSONField.path(path, FaultRuleKey.action), FaultActionKey.reason),
                    "expected at most \(Self.maximumReasonLength) bytes, found \(length)")
            }
        default:
            break
        }
    }
}
