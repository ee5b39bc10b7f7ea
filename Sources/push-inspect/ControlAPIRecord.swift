import APNsCore
import PushRules
import StrictJSON

/// Reads a record of the control API's `/pushes` answer (the capture-file shape, see
/// docs/capture-format.md) into a push.
///
/// The mock keeps its record decoder internal, so the fields push-inspect needs are read
/// here, following the same documented format.
enum ControlAPIRecord {
    /// The push in one record; nil when the record is not an object.
    static func push(from record: JSONValue, sourceName: String) -> PushInput? {
        guard case .object(let fields) = record else { return nil }
        var sent: [String: String] = [:]
        if case .array(let pairs)? = fields["headers"] {
            for pair in pairs {
                guard case .array(let parts) = pair, parts.count == 2, let name = parts[0].stringValue,
                    let value = parts[1].stringValue
                else { continue }
                let lowered = name.lowercased()
                if sent[lowered] == nil { sent[lowered] = value }
            }
        }
        func string(_ key: String) -> String? { fields[key]?.stringValue }
        func integer(_ key: String) -> Int64? { if case .integer(let n)? = fields[key] { n } else { nil } }
        var headers = PushHeaders(
            // Not the record's `push_type` or `priority`: when no header was sent, they hold
            // the type the mock inferred and 10.
            sentPushType: sent[APNsHeaderName.pushType],
            topic: sent[APNsHeaderName.topic] ?? string("topic"),
            priority: sent[APNsHeaderName.priority],
            expiration: sent[APNsHeaderName.expiration],
            collapseID: sent[APNsHeaderName.collapseID] ?? string("collapse_id"),
            apnsID: sent[APNsHeaderName.id],
            deviceToken: string("device_token") ?? string("raw_device_token"))
        if headers.expiration == nil, headers.unparsedExpiration == nil { headers.expiration = integer("expiration") }
        let result = integer("status").map { PushResult(status: Int($0), reason: string("reason")) }
        let sequence = integer("seq").flatMap { UInt64(exactly: $0) }
        let source = PushSource(name: sourceName, sequence: sequence)
        let sentAt = string("time").flatMap(RFC3339.unixSeconds)
        guard case .object(let payload)? = fields["payload"] else {
            return PushInput(headers: headers, payloadSize: 0, payload: nil, payloadError: "the record has no payload",
                             result: result, sentAt: sentAt, source: source)
        }
        let size = (payload["size"]).flatMap { if case .integer(let n) = $0 { Int(n) } else { nil } } ?? 0
        if let parsed = payload["parsed"], parsed != .null {
            return PushInput(headers: headers, payloadSize: size, payload: parsed, result: result, sentAt: sentAt, source: source)
        }
        if payload["base64"] != .bool(true), let raw = payload["raw"]?.stringValue {
            return PushInput(headers: headers, payload: Array(raw.utf8), result: result, sentAt: sentAt, source: source)
        }
        return PushInput(headers: headers, payloadSize: size, payload: nil, payloadError: "the payload is not UTF-8 JSON",
                         result: result, sentAt: sentAt, source: source)
    }
}
