import APNsCore
import HTTPTransport
import StrictJSON

/// JSON field names of a fault rule, defined once for the decoder and the encoder.
enum FaultRuleKey {
    static let id = "id"
    static let note = "description"
    static let match = "match"
    static let probability = "probability"
    static let count = "count"
    static let action = "action"
    /// Read-only counts in the control API's listing (``FaultRuleStatistics``); accepted and
    /// ignored on the way in, so that a listing can be sent back with `PUT /faults`.
    static let fired = "fired"
    static let remaining = "remaining"
    static let all = [id, note, match, probability, count, action, fired, remaining]
}

/// JSON field names of a rule's `match`.
enum FaultMatchKey {
    static let deviceToken = "device_token"
    static let topic = "topic"
    static let pushType = "push_type"
    static let channelID = "channel_id"
    static let all = [deviceToken, topic, pushType, channelID]
}

/// JSON field names and `type` values of a rule's `action`.
enum FaultActionKey {
    static let type = "type"
    static let status = "status"
    static let reason = "reason"
    static let milliseconds = "milliseconds"
    static let errorCode = "error_code"
    static let limit = "limit"
    static let windowSeconds = "window_seconds"
    static let window = "window"

    /// The `type` values, each with the fields it allows besides `type`. Values are
    /// snake_case, as the keys are.
    enum Kind: String, CaseIterable {
        case status, delay
        case resetStream = "reset_stream"
        case closeConnection = "close_connection"
        case goAway = "go_away"
        case rateLimit = "rate_limit"
        case unavailable

        var fields: [String] {
            switch self {
            case .status: [FaultActionKey.status, FaultActionKey.reason]
            case .delay: [FaultActionKey.milliseconds]
            case .resetStream: [FaultActionKey.errorCode]
            case .closeConnection: []
            case .goAway: [FaultActionKey.errorCode, FaultActionKey.reason]
            case .rateLimit: [FaultActionKey.limit, FaultActionKey.windowSeconds, FaultActionKey.window]
            case .unavailable: [FaultActionKey.reason]
            }
        }
    }
}

extension FaultRule {
    /// The longest rate-limit window: a day.
    static let maximumWindowSeconds = 86_400.0

    /// Decodes a rule from its JSON form.
    ///
    /// ```json
    /// {"id":"flaky","match":{"topic":"com.example.app"},"probability":0.5,"count":3,
    ///  "action":{"type":"status","status":500,"reason":"InternalServerError"}}
    /// ```
    ///
    /// - Parameters:
    ///   - json: The rule object.
    ///   - path: Its JSON path, for errors, such as `faults[2]`.
    ///   - defaultID: The id to use when the object has none; nil makes `id` required.
    /// - Throws: ``ConfigurationError`` naming the field, such as
    ///   `faults[2].action.status: expected an integer 400-599, found 700`.
    public init(json: JSONValue, path: String = "", defaultID: String? = nil) throws(ConfigurationError) {
        let object = try JSONObjectReader(json, path: path, allowed: FaultRuleKey.all)
        let id: String
        if let given = try object.string(FaultRuleKey.id) {
            guard Self.isValidID(given) else {
                throw ConfigurationError(
                    .invalidValue, path: object.path(FaultRuleKey.id),
                    "expected 1-64 letters, digits, '.', '_' or '-', \(JSONField.found(.string(given)))")
            }
            id = given
        } else if let defaultID {
            id = defaultID
        } else {
            throw ConfigurationError(.missingField, path: object.path(FaultRuleKey.id), "required field is missing")
        }
        let match = try object.value(FaultRuleKey.match).map { (value) throws(ConfigurationError) in
            try FaultMatch(json: value, path: object.path(FaultRuleKey.match))
        }
        let count = try object.integer(FaultRuleKey.count, in: 1...Int64(Int32.max)).map { Int($0) }
        self.init(
            id: id, match: match ?? .any, probability: try object.number(FaultRuleKey.probability, in: 0...1),
            count: count, action: try FaultAction(json: try object.required(FaultRuleKey.action), path: object.path(FaultRuleKey.action)),
            note: try object.string(FaultRuleKey.note))
        try checkLengths(path: path)
    }

    /// The rule's JSON form, which ``init(json:path:defaultID:)`` reads back.
    public var jsonValue: JSONValue { .object(jsonMembers) }

    private var jsonMembers: [String: JSONValue] {
        var members: [String: JSONValue] = [FaultRuleKey.id: .string(id), FaultRuleKey.action: action.jsonValue]
        if !match.isAny { members[FaultRuleKey.match] = match.jsonValue }
        if let probability { members[FaultRuleKey.probability] = .double(probability) }
        if let count { members[FaultRuleKey.count] = .integer(Int64(count)) }
        if let note { members[FaultRuleKey.note] = .string(note) }
        return members
    }

    /// Decodes a list of rules, such as the `faults` array of the configuration file or a
    /// control-API request body. Rules without an id get `fault-1`, `fault-2`… by position,
    /// skipping any id the list gives explicitly.
    ///
    /// - Throws: ``ConfigurationError`` naming the element and field, or `.duplicateID`.
    public static func decodeList(_ json: JSONValue, path: String = "faults") throws(ConfigurationError) -> [FaultRule] {
        var rules: [FaultRule] = []
        var seen: Set<String> = []
        for (index, element) in try JSONField.array(json, path: path).enumerated() {
            let elementPath = JSONField.path(path, index)
            // No explicit id can be empty, so "" marks the rules that get a default below.
            let rule = try FaultRule(json: element, path: elementPath, defaultID: "")
            guard rule.id.isEmpty || seen.insert(rule.id).inserted else {
                throw ConfigurationError(
                    .duplicateID, path: JSONField.path(elementPath, FaultRuleKey.id), "duplicate fault rule id \"\(rule.id)\"")
            }
            rules.append(rule)
        }
        for index in rules.indices where rules[index].id.isEmpty {
            rules[index].id = defaultID(number: index + 1, avoiding: seen)
            seen.insert(rules[index].id)
        }
        return rules
    }

    /// `fault-<number>`, or the first `fault-<n>` after it that `ids` does not hold.
    static func defaultID(number: Int, avoiding ids: Set<String>) -> String {
        var number = number
        while ids.contains("fault-\(number)") { number += 1 }
        return "fault-\(number)"
    }

    /// A list of rules as a JSON array.
    public static func encodeList(_ rules: [FaultRule]) -> JSONValue {
        .array(rules.map(\.jsonValue))
    }

    /// Rules as the control API lists them: each rule's JSON form plus its read-only
    /// `fired` count and, for a rule with a count, `remaining`. ``decodeList(_:path:)``
    /// reads it back, ignoring the two.
    ///
    /// ```json
    /// [{"id":"apns-down","count":3,"fired":1,"remaining":2,"action":{"type":"unavailable","reason":"ServiceUnavailable"}}]
    /// ```
    public static func encodeListing(_ entries: [(rule: FaultRule, statistics: FaultRuleStatistics)]) -> JSONValue {
        .array(entries.map { entry in
            var members = entry.rule.jsonMembers
            members[FaultRuleKey.fired] = .integer(Int64(entry.statistics.fired))
            if let remaining = entry.statistics.remaining { members[FaultRuleKey.remaining] = .integer(Int64(remaining)) }
            return .object(members)
        })
    }
}

extension FaultRuleStatistics {
    /// `{"id":"flaky","fired":2,"remaining":1}`; `remaining` is left out for rules without a count.
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = [FaultRuleKey.id: .string(id), FaultRuleKey.fired: .integer(Int64(fired))]
        if let remaining { members[FaultRuleKey.remaining] = .integer(Int64(remaining)) }
        return .object(members)
    }
}

extension FaultMatch {
    /// Decodes `{"device_token":…,"topic":…,"push_type":…}`; every field is optional.
    init(json: JSONValue, path: String) throws(ConfigurationError) {
        let object = try JSONObjectReader(json, path: path, allowed: FaultMatchKey.all)
        self.init()
        if let text = try object.string(FaultMatchKey.deviceToken) {
            guard let token = DeviceToken(text) else {
                throw ConfigurationError(
                    .invalidValue, path: object.path(FaultMatchKey.deviceToken),
                    "expected an even number of hex digits, \(JSONField.found(.string(text)))")
            }
            deviceToken = token
        }
        topic = try object.string(FaultMatchKey.topic)
        if let text = try object.string(FaultMatchKey.pushType) {
            guard let type = APNsPushType(rawValue: text) else {
                throw ConfigurationError(
                    .invalidValue, path: object.path(FaultMatchKey.pushType),
                    "expected one of \(APNsPushType.allCases.map(\.rawValue).joined(separator: ", ")), \(JSONField.found(.string(text)))")
            }
            pushType = type
        }
        channelID = try object.string(FaultMatchKey.channelID)
    }

    var jsonValue: JSONValue {
        var members: [String: JSONValue] = [:]
        if let deviceToken { members[FaultMatchKey.deviceToken] = .string(deviceToken.hex) }
        if let topic { members[FaultMatchKey.topic] = .string(topic) }
        if let pushType { members[FaultMatchKey.pushType] = .string(pushType.rawValue) }
        if let channelID { members[FaultMatchKey.channelID] = .string(channelID) }
        return .object(members)
    }
}

extension FaultAction {
    /// Decodes an action object; `type` selects which other fields are allowed.
    init(json: JSONValue, path: String) throws(ConfigurationError) {
        guard case .object(let members) = json else {
            throw ConfigurationError(.invalidValue, path: path, "expected an object, \(JSONField.found(json))")
        }
        let typePath = JSONField.path(path, FaultActionKey.type)
        let kinds = FaultActionKey.Kind.allCases.map(\.rawValue).joined(separator: ", ")
        guard let typeValue = members[FaultActionKey.type] else {
            throw ConfigurationError(.missingField, path: typePath, "required field is missing; expected one of \(kinds)")
        }
        guard let kind = typeValue.stringValue.flatMap(FaultActionKey.Kind.init(rawValue:)) else {
            if let text = typeValue.stringValue,
               let renamed = JSONKeyConvention.renamed(text, among: FaultActionKey.Kind.allCases.map(\.rawValue)) {
                throw ConfigurationError(
                    .invalidValue, path: typePath, "\(JSONValue.string(text)) is now \(JSONValue.string(renamed)); expected one of \(kinds)")
            }
            throw ConfigurationError(.invalidValue, path: typePath, "expected one of \(kinds), \(JSONField.found(typeValue))")
        }
        let object = try JSONObjectReader(json, path: path, allowed: [FaultActionKey.type] + kind.fields)
        switch kind {
        case .status:
            let reasonText = try object.requiredString(FaultActionKey.reason)
            let reason = APNsReason(wireValue: reasonText)
            let status: Int
            if let given = try object.integer(FaultActionKey.status, in: 400...599) {
                status = Int(given)
            } else if let known = reason.status {
                status = known
            } else {
                throw ConfigurationError(
                    .missingField, path: object.path(FaultActionKey.status),
                    "required for reason \"\(reasonText)\", which APNs does not define; expected an integer 400-599")
            }
            self = .status(status, reason: reason)
        case .delay:
            let milliseconds = try JSONField.integer(
                try object.required(FaultActionKey.milliseconds), path: object.path(FaultActionKey.milliseconds),
                in: 0...FaultRule.maximumDelay.faultMilliseconds)
            self = .delay(.milliseconds(milliseconds))
        case .resetStream:
            self = .resetStream(try Self.errorCode(object) ?? Self.defaultResetErrorCode)
        case .closeConnection:
            self = .closeConnection
        case .goAway:
            let reason = try object.string(FaultActionKey.reason).map(APNsReason.init(wireValue:))
            self = .goAway(errorCode: try Self.errorCode(object) ?? Self.defaultGoAwayErrorCode, reason: reason)
        case .rateLimit:
            let limit = try JSONField.integer(
                try object.required(FaultActionKey.limit), path: object.path(FaultActionKey.limit), in: 1...Int64(Int32.max))
            let seconds = try JSONField.number(
                try object.required(FaultActionKey.windowSeconds), path: object.path(FaultActionKey.windowSeconds),
                in: 0.001...FaultRule.maximumWindowSeconds)
            var window = FaultRateLimit.Window.sliding
            if let text = try object.string(FaultActionKey.window) {
                guard let parsed = FaultRateLimit.Window(rawValue: text) else {
                    throw ConfigurationError(
                        .invalidValue, path: object.path(FaultActionKey.window),
                        "expected \"sliding\" or \"fixed\", \(JSONField.found(.string(text)))")
                }
                window = parsed
            }
            self = .rateLimit(FaultRateLimit(limit: Int(limit), window: .milliseconds((seconds * 1000).rounded()), kind: window))
        case .unavailable:
            var reason = APNsReason.serviceUnavailable
            if let text = try object.string(FaultActionKey.reason) {
                reason = APNsReason(wireValue: text)
                guard Self.unavailableReasons.contains(reason) else {
                    throw ConfigurationError(
                        .invalidValue, path: object.path(FaultActionKey.reason),
                        "expected \"ServiceUnavailable\" or \"Shutdown\", \(JSONField.found(.string(text)))")
                }
            }
            self = .unavailable(reason)
        }
    }

    /// `error_code` as an RFC 9113 name (`"CANCEL"`) or a number.
    private static func errorCode(_ object: JSONObjectReader) throws(ConfigurationError) -> HTTP2ErrorCode? {
        guard let value = object.value(FaultActionKey.errorCode) else { return nil }
        let expected = "expected an HTTP/2 error code name (\(HTTP2ErrorCode.faultNames.joined(separator: ", "))) or an integer 0-4294967295"
        switch value {
        case .string(let name):
            guard let code = HTTP2ErrorCode(faultName: name) else {
                throw ConfigurationError(.invalidValue, path: object.path(FaultActionKey.errorCode), "\(expected), \(JSONField.found(value))")
            }
            return code
        case .integer(let number) where (0...Int64(UInt32.max)).contains(number):
            return HTTP2ErrorCode(rawValue: UInt32(number))
        default:
            throw ConfigurationError(.invalidValue, path: object.path(FaultActionKey.errorCode), "\(expected), \(JSONField.found(value))")
        }
    }

    var jsonValue: JSONValue {
        func code(_ code: HTTP2ErrorCode) -> JSONValue {
            code.faultName.map(JSONValue.string) ?? .integer(Int64(code.rawValue))
        }
        let type = FaultActionKey.type
        switch self {
        case .status(let status, let reason):
            return [type: .string(FaultActionKey.Kind.status.rawValue), FaultActionKey.status: .integer(Int64(status)),
                    FaultActionKey.reason: .string(reason.wireValue)]
        case .delay(let delay):
            return [type: .string(FaultActionKey.Kind.delay.rawValue), FaultActionKey.milliseconds: .integer(delay.faultMilliseconds)]
        case .resetStream(let errorCode):
            return [type: .string(FaultActionKey.Kind.resetStream.rawValue), FaultActionKey.errorCode: code(errorCode)]
        case .closeConnection:
            return [type: .string(FaultActionKey.Kind.closeConnection.rawValue)]
        case .goAway(let errorCode, let reason):
            var members: [String: JSONValue] = [
                type: .string(FaultActionKey.Kind.goAway.rawValue), FaultActionKey.errorCode: code(errorCode),
            ]
            if let reason { members[FaultActionKey.reason] = .string(reason.wireValue) }
            return .object(members)
        case .rateLimit(let limit):
            let milliseconds = limit.window.faultMilliseconds
            let seconds: JSONValue = milliseconds % 1000 == 0 ? .integer(milliseconds / 1000) : .double(Double(milliseconds) / 1000)
            return [type: .string(FaultActionKey.Kind.rateLimit.rawValue), FaultActionKey.limit: .integer(Int64(limit.limit)),
                    FaultActionKey.windowSeconds: seconds, FaultActionKey.window: .string(limit.kind.rawValue)]
        case .unavailable(let reason):
            return [type: .string(FaultActionKey.Kind.unavailable.rawValue), FaultActionKey.reason: .string(reason.wireValue)]
        }
    }
}
