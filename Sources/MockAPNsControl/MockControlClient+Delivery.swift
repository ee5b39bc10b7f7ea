import APNsCapture
import APNsCore
import StrictJSON

/// The delivery log (`GET /delivery`, docs/control-api.md, "Delivery"), for a mock started
/// with `--delivery`.
extension MockControlClient {
    /// The delivery records `lookup` names: at most one for an `apns-id` or unique id (none
    /// when the log does not hold that push), each of the device's for a device token.
    ///
    /// - Throws: ``MockControlError``: `answered(status: 409, …)` when the mock's delivery
    ///   model is off; `malformedAnswer` when a record is not as documented.
    public func deliveryRecords(_ lookup: DeliveryLookup) async throws(MockControlError) -> [MockDeliveryRecord] {
        let answer = try await send("GET", "/delivery?" + lookup.parameter, expecting: [200])
        guard case .object(let body)? = try? JSONParser.parse(answer.response.body, maximumDepth: Self.maximumDepth),
              case .array(let records)? = body["records"] else {
            throw malformed(answer, "not {\"records\":[…]}: \(MockControlError.quoted(body: answer.response.body))")
        }
        var decoded: [MockDeliveryRecord] = []
        for (index, record) in records.enumerated() {
            guard let value = Self.deliveryRecord(record) else {
                throw malformed(answer, "record \(index + 1) lacks a field GET /delivery documents, or has one of another type")
            }
            decoded.append(value)
        }
        return decoded
    }

    /// A record of `GET /delivery`'s answer, or nil when a field is missing or mistyped.
    static func deliveryRecord(_ value: JSONValue) -> MockDeliveryRecord? {
        guard case .object(let members) = value,
              let apnsID = members["apns_id"]?.stringValue, let tokenText = members["device_token"]?.stringValue,
              let token = DeviceToken(tokenText), let topic = members["topic"]?.stringValue,
              let pushType = members["push_type"]?.stringValue, case .integer(let priority)? = members["priority"],
              let acceptedText = members["accepted_at"]?.stringValue, let acceptedAt = CaptureTimestamp.parse(acceptedText),
              let state = members["state"]?.stringValue, case .array(let eventValues)? = members["events"]
        else { return nil }
        let uniqueID = members["unique_id"]?.stringValue
        var events: [CaptureDeliveryEvent] = []
        for eventValue in eventValues {
            guard case .object(let event) = eventValue, let eventState = event["state"]?.stringValue,
                  let atText = event["at"]?.stringValue, let at = CaptureTimestamp.parse(atText) else { return nil }
            events.append(CaptureDeliveryEvent(timeMicroseconds: at, apnsID: apnsID, uniqueID: uniqueID, deviceToken: token,
                                               topic: topic, state: eventState, why: event["why"]?.stringValue,
                                               by: event["by"]?.stringValue))
        }
        var expiration: Int64?
        if case .integer(let seconds)? = members["expiration"] { expiration = seconds }
        return MockDeliveryRecord(apnsID: apnsID, uniqueID: uniqueID, deviceToken: token, topic: topic, pushType: pushType,
                                  priority: Int(clamping: priority), expiration: expiration,
                                  collapseID: members["collapse_id"]?.stringValue, acceptedAtMicroseconds: acceptedAt,
                                  state: state, events: events)
    }
}
