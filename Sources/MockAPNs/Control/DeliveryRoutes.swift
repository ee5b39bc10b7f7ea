import APNsCapture
import APNsCore
import Foundation
import HTTPTransport
import StrictJSON

/// The control API's `/delivery` routes (docs/control-api.md, "Delivery"): the delivery log
/// by `apns-id`, `apns-unique-id` or device, a wait for a state, devices' connectivity and
/// notification centres.
///
/// | method | path | does |
/// |---|---|---|
/// | GET | /delivery | records matching exactly one of `apns_id`, `unique_id`, `device_token` |
/// | GET | /delivery/live | the changes numbered after `after`, or a wait for one (``respondLive(_:query:responder:)``) |
/// | GET | /delivery/wait | waits until the push (`apns_id` or `unique_id`) reaches `state`, or `timeout` seconds pass (408) |
/// | GET | /delivery/devices | devices the model has state for |
/// | PUT | /delivery/devices/{token} | sets a device's connectivity plan from now |
/// | GET | /delivery/devices/{token}/notifications | what the device shows now |
struct DeliveryRoutes {
    let model: DeliveryModel
    let waits: ControlWaits

    static let prefix = "/delivery"
    static let state = "state"

    /// Whether `path` is one of these routes' paths.
    static func owns(_ path: String) -> Bool { path == prefix || path.hasPrefix(prefix + "/") }

    /// Answers one request to a `/delivery` path.
    ///
    /// - Throws: ``ControlAPI/QueryError`` or `ConfigurationError` for a bad query or body (400).
    func handle(_ request: HTTPRequest, path: String, query: QueryParameters, responder: HTTPResponder) throws {
        guard model.isEnabled else {
            responder.respond(ControlAPI.error(409, "the delivery model is off: set \"delivery\": {\"enabled\": true} in the "
                + "configuration file, or start apns-mock with --delivery (docs/delivery.md)"))
            return
        }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst(2).map(String.init)
        switch (request.method, parts.count, parts.first) {
        case ("GET", 0, _):
            try accept(query, [ControlQueryKey.apnsID, ControlQueryKey.uniqueID, ControlQueryKey.deviceToken], method: "GET", path: path)
            let records: [DeliveryRecord]
            switch (query[ControlQueryKey.apnsID], query[ControlQueryKey.uniqueID], query[ControlQueryKey.deviceToken]) {
            case (let id?, nil, nil): records = model.record(apnsID: id).map { [$0] } ?? []
            case (nil, let id?, nil): records = model.record(uniqueID: id).map { [$0] } ?? []
            case (nil, nil, let text?): records = model.records(deviceToken: try Self.token(text))
            default:
                throw ControlAPI.QueryError(description: "give exactly one of apns_id, unique_id and device_token")
            }
            responder.respond(ControlAPI.json(200, .object([
                ControlBodyKey.count: .integer(Int64(records.count)), "records": .array(records.map(Self.json)),
            ])))
        case ("GET", 1, "wait"):
            try accept(query, [ControlQueryKey.apnsID, ControlQueryKey.uniqueID, Self.state, ControlQueryKey.timeout],
                       method: "GET", path: path)
            let lookup: DeliveryModel.Lookup
            switch (query[ControlQueryKey.apnsID], query[ControlQueryKey.uniqueID]) {
            case (let id?, nil): lookup = .apnsID(id)
            case (nil, let id?): lookup = .uniqueID(id)
            default: throw ControlAPI.QueryError(description: "give exactly one of apns_id and unique_id")
            }
            let text = query[Self.state] ?? DeliveryState.delivered.rawValue
            guard let state = DeliveryState(rawValue: text) else {
                throw ControlAPI.QueryError(description: "\(Self.state): expected one of "
                    + "\(DeliveryState.allCases.map(\.rawValue).joined(separator: ", ")), found \"\(text)\"")
            }
            let seconds = try ControlAPI.number(query, ControlQueryKey.timeout, in: 0...Double(ControlAPI.maximumWait.components.seconds)) ?? 30
            let model = model, waits = waits
            waits.start(connection: request.connection.id) {
                let result = await model.wait(for: lookup, toReach: state, timeout: .milliseconds(Int64(seconds * 1000)))
                if result.ending == .cancelled, !waits.isStopping { return }
                let status = result.isSatisfied ? 200 : result.ending == .cancelled ? 503 : 408
                responder.respond(ControlAPI.json(status, .object([
                    ControlBodyKey.satisfied: .bool(result.isSatisfied),
                    "record": result.record.map(Self.json) ?? .null,
                ])))
            }
        case ("GET", 1, "live"):
            try accept(query, ControlAPI.LiveWindow.parameters, method: "GET", path: path)
            try respondLive(request, query: query, responder: responder)
        case ("GET", 1, "devices"):
            try accept(query, [], method: "GET", path: path)
            responder.respond(ControlAPI.json(200, .object(["devices": .array(model.deviceSummaries().map(Self.json))])))
        case ("PUT", 2, "devices"):
            try accept(query, [], method: "PUT", path: path)
            let token = try Self.token(parts[1])
            let plan = try ConfigurationJSON.decodeConnectivityPlan(try ConfigurationJSON.parse(request.body), path: "")
            model.schedule(plan, for: token)
            let summary = model.deviceSummaries().first { $0.deviceToken == token }
                ?? DeliveryModel.DeviceSummary(deviceToken: token, connectivity: model.connectivity(of: token), storedPushes: 0, shownNotifications: 0)
            responder.respond(ControlAPI.json(200, Self.json(summary)))
        case ("GET", 3, "devices") where parts[2] == "notifications":
            try accept(query, [], method: "GET", path: path)
            responder.respond(ControlAPI.json(200, Self.json(model.notificationCentre(for: try Self.token(parts[1])))))
        default:
            let allowed: [String] = switch (parts.count, parts.first) {
            case (0, _), (1, "wait"), (1, "live"), (1, "devices"): ["GET"]
            case (2, "devices"): ["PUT"]
            case (3, "devices") where parts[2] == "notifications": ["GET"]
            default: []
            }
            guard !allowed.isEmpty else {
                responder.respond(ControlAPI.error(404, "no such control endpoint: \(path)"))
                return
            }
            var response = ControlAPI.error(405, "\(request.method) is not allowed on \(path); it answers \(allowed.joined(separator: ", "))")
            response.headers.add(name: "allow", value: allowed.joined(separator: ", "))
            responder.respond(response)
        }
    }

    /// Refuses query parameters the route does not read, as the other routes do.
    private func accept(_ query: QueryParameters, _ names: [String], method: String, path: String) throws {
        if let part = query.undecodablePart {
            throw ControlAPI.QueryError(description: "query parameter \(JSONValue.string(part)) does not decode: percent-encode each byte as %XX")
        }
        if let name = query.repeatedName {
            throw ControlAPI.QueryError(description: "query parameter \(JSONValue.string(name)) is given more than once; give it once")
        }
        if let unknown = query.names.first(where: { !names.contains($0) }) {
            let expected = names.isEmpty ? "\(method) \(path) takes none" : "expected one of \(names.joined(separator: ", "))"
            throw ControlAPI.QueryError(description: "unknown query parameter \(JSONValue.string(unknown)); \(expected)")
        }
    }

    private static func token(_ text: String) throws -> DeviceToken {
        guard let token = DeviceToken(text) else {
            throw ControlAPI.QueryError(description: "device token: expected hex digits, found \(JSONValue.string(text))")
        }
        return token
    }

    // MARK: JSON

    static func time(_ date: Date) -> JSONValue {
        .string(CaptureTimestamp.string(microseconds: Int64((date.timeIntervalSince1970 * 1_000_000).rounded())))
    }

    static func json(_ record: DeliveryRecord) -> JSONValue {
        var members: [String: JSONValue] = [
            "apns_id": .string(record.apnsID), "device_token": .string(record.deviceToken.hex), "topic": .string(record.topic),
            "push_type": .string(record.pushType.rawValue), "priority": .integer(Int64(record.priority.rawValue)),
            "accepted_at": time(record.acceptedAt), Self.state: .string(record.state.rawValue),
            "events": .array(record.events.map { .object(json($0)) }),
        ]
        if let uniqueID = record.uniqueID { members["unique_id"] = .string(uniqueID) }
        if let expiration = record.expiration { members["expiration"] = .integer(expiration) }
        if let collapseID = record.collapseID { members["collapse_id"] = .string(collapseID) }
        return .object(members)
    }

    /// An event's members: `state`, `why`, `by`, `at`.
    static func json(_ event: DeliveryEvent) -> [String: JSONValue] {
        var fields: [String: JSONValue] = [Self.state: .string(event.state.rawValue), "at": time(event.at)]
        if let why = event.why { fields["why"] = .string(why.rawValue) }
        if let by = event.by { fields["by"] = .string(by) }
        return fields
    }

    static func json(_ summary: DeliveryModel.DeviceSummary) -> JSONValue {
        .object([
            "device_token": .string(summary.deviceToken.hex), "connectivity": .string(summary.connectivity.rawValue),
            "stored_pushes": .integer(Int64(summary.storedPushes)), "shown_notifications": .integer(Int64(summary.shownNotifications)),
        ])
    }

    static func json(_ centre: NotificationCentre) -> JSONValue {
        .object([
            "device_token": .string(centre.deviceToken.hex), "connectivity": .string(centre.connectivity.rawValue),
            "badges": .object(centre.badges.mapValues { .integer(Int64($0)) }),
            "notifications": .array(centre.notifications.map { shown in
                var members: [String: JSONValue] = [
                    "apns_id": .string(shown.apnsID), "topic": .string(shown.topic), "delivered_at": time(shown.deliveredAt),
                    "payload_base64": .string(Data(shown.payload).base64EncodedString()),
                ]
                if let payload = try? JSONParser.parse(shown.payload) { members["payload"] = payload }
                if let uniqueID = shown.uniqueID { members["unique_id"] = .string(uniqueID) }
                if let collapseID = shown.collapseID { members["collapse_id"] = .string(collapseID) }
                return .object(members)
            }),
        ])
    }
}
