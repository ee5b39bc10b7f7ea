import StrictJSON

extension Finding {
    /// The finding as a JSON object: `rule`, `path`, `message`, and `detector` and `value`
    /// when set (`value` only when `showValues`).
    public func jsonValue(showValues: Bool) -> JSONValue {
        var members: [String: JSONValue] = [
            "rule": .string(rule), "path": .string(path.description), "message": .string(message),
        ]
        if let detector { members["detector"] = .string(detector) }
        if showValues, let value { members["value"] = .string(value) }
        return .object(members)
    }
}

extension PushSource {
    /// The source as JSON members: `source`, and `line`, `seq`, `apns_id` and
    /// `environment` when known.
    public var jsonMembers: [String: JSONValue] {
        var members: [String: JSONValue] = ["source": .string(name)]
        if let line { members["line"] = .integer(Int64(line)) }
        if let sequence, let value = Int64(exactly: sequence) { members["seq"] = .integer(value) }
        if let apnsID { members["apns_id"] = .string(apnsID) }
        if let environment { members["environment"] = .string(environment) }
        return members
    }
}
