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
            do {
                decoded.append(try Self.deliveryRecord(record))
            } catch {
                throw malformed(answer, "record \(index + 1) \(error.description)")
            }
        }
        return decoded
    }

    /// Why a record of `GET /delivery`'s answer does not decode.
    struct RecordProblem: Error, CustomStringConvertible {
        var description: String

        static let missingField = RecordProblem(description: "lacks a field GET /delivery documents, or has one of another type")

        /// A value outside the documented set, named with the ones it may take.
        static func unknown<Value: RawRepresentable & CaseIterable>(_ field: String, _ text: String, expected: Value.Type) -> RecordProblem
            where Value.RawValue == String {
            RecordProblem(description: "has \(field) \(JSONValue.string(text)), which is none of "
                + Value.allCases.map(\.rawValue).joined(separator: ", "))
        }
    }

    /// A record of `GET /delivery`'s answer.
    ///
    /// - Throws: ``RecordProblem`` when a field is missing or mistyped, or a state or push
    ///   type is not one this client knows (a newer mock's: update the client).
    static func deliveryRecord(_ value: JSONValue) throws(RecordProblem) -> MockDeliveryRecord {
        guard case .object(let members) = value,
              let apnsID = members["apns_id"]?.stringValue, let tokenText = members["device_token"]?.stringValue,
              let token = DeviceToken(tokenText), let topic = members["topic"]?.stringValue,
              let pushTypeText = members["push_type"]?.stringValue, case .integer(let priority)? = members["priority"],
              let acceptedText = members["accepted_at"]?.stringValue, let acceptedAt = CaptureTimestamp.parse(acceptedText),
              let stateText = members["state"]?.stringValue, case .array(let eventValues)? = members["events"]
        else { throw .missingField }
        guard let pushType = APNsPushType(rawValue: pushTypeText) else {
            throw .unknown("push_type", pushTypeText, expected: APNsPushType.self)
        }
        let state = try Self.state(stateText, "state")
        let uniqueID = members["unique_id"]?.stringValue
        var events: [CaptureDeliveryEvent] = []
        for (index, eventValue) in eventValues.enumerated() {
            guard case .object(let event) = eventValue, let eventState = event["state"]?.stringValue,
                  let atText = event["at"]?.stringValue, let at = CaptureTimestamp.parse(atText) else { throw .missingField }
            _ = try Self.state(eventState, "events[\(index)].state")
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

    private static func state(_ text: String, _ field: String) throws(RecordProblem) -> DeliveryState {
        guard let state = DeliveryState(rawValue: text) else { throw .unknown(field, text, expected: DeliveryState.self) }
        return state
    }
}
