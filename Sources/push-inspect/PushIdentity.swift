import APNsCore
import PushRules
import StrictJSON

/// What names a reported push, the same in `check`'s text, `--json` and JUnit: its source
/// and seq, its `apns-id`, its device token (masked), topic, push type, environment and
/// outcome. A developer handed an `apns-id` finds the push by it (`--apns-id`).
enum PushIdentity {
    /// The device token with all but its ends hidden; a token that is not hex (which the
    /// mock rejected) as sent, cut short.
    static func maskedToken(_ push: PushInput) -> String? {
        guard let token = push.headers.deviceToken else { return nil }
        if let parsed = DeviceToken(token) { return parsed.masked }
        return token.count > 16 ? String(token.prefix(16)) + "…" : token
    }

    /// `source`, `line` or `seq`, `apns_id`, `environment`, `device_token` (masked),
    /// `topic`, `push_type` (as sent), `status`, `reason` and `injected`: each when known.
    static func jsonMembers(_ push: PushInput) -> [String: JSONValue] {
        var members = push.source.jsonMembers
        if let token = maskedToken(push) { members["device_token"] = .string(token) }
        if let topic = push.headers.topic { members["topic"] = .string(topic) }
        if let type = push.headers.pushType { members["push_type"] = .string(type) }
        if let result = push.result {
            members["status"] = .integer(Int64(result.status))
            if let reason = result.reason { members["reason"] = .string(reason) }
            if result.injected { members["injected"] = .bool(true) }
        }
        return members
    }

    /// ` apns-id=… token=abcd…6789 env=sandbox outcome=400 BadDeviceToken`, each part when
    /// known, escaped: everything after the source and `(type topic)` on a `FAIL` line.
    static func text(_ push: PushInput) -> String {
        var parts: [String] = []
        if let id = push.source.apnsID { parts.append("apns-id=" + TerminalText.escaped(id)) }
        if let token = maskedToken(push) { parts.append("token=" + TerminalText.escaped(token)) }
        if let environment = push.source.environment { parts.append("env=" + environment) }
        if let result = push.result { parts.append("outcome=" + TerminalText.escaped(result.summary)) }
        return parts.isEmpty ? "" : " " + parts.joined(separator: " ")
    }
}
