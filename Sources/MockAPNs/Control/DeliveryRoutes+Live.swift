import APNsCore
import HTTPTransport
import StrictJSON

/// `GET /delivery/live`: the delivery model's changes as a long-poll, shaped like
/// `/pushes/live` (docs/control-api.md, "Delivery"). It answers at once with the newest
/// changes numbered after `after`, newest first and at most `limit`, with how many there
/// are and the latest number; with none, it waits up to `timeout` seconds for one
/// (``DeliveryModel/waitForChange(after:timeout:)``, in ``ControlWaits`` like every wait).
extension DeliveryRoutes {
    /// Names in the answer.
    enum LiveKey {
        static let changes = "changes"
        static let kind = "kind"
    }

    func respondLive(_ request: HTTPRequest, query: QueryParameters, responder: HTTPResponder) throws {
        let window = try ControlAPI.LiveWindow(query)
        let after = window.after, limit = window.limit
        var found = model.changes(after: after, limit: limit)
        // Numbers from a model before a restart: answered at once, from the first change, so
        // that the follower learns of it from `latest_seq` and starts again.
        let restarted = after > found.latestSequence
        if restarted { found = model.changes(after: 0, limit: limit) }
        guard found.latestSequence == after, window.timeout > .zero else {
            responder.respond(Self.live(found))
            return
        }
        let model = model, waits = waits
        waits.start(connection: request.connection.id) {
            let ending = await model.waitForChange(after: after, timeout: window.timeout)
            if ending == .cancelled {
                guard waits.isStopping else { return }
                responder.respond(Self.live(model.changes(after: after, limit: limit), status: 503))
                return
            }
            // Read again: more may have changed since the one that ended the wait.
            responder.respond(Self.live(model.changes(after: after, limit: limit)))
        }
    }

    /// `{"count":N,"latest_seq":L,"matched":M,"changes":[newest first]}`.
    static func live(_ found: DeliveryChanges, status: Int = 200) -> HTTPResponse {
        var members: [String: JSONValue] = [
            ControlBodyKey.count: .integer(Int64(found.changes.count)),
            ControlAPI.LiveKey.matched: .integer(Int64(found.matched)),
            ControlAPI.LiveKey.latestSequence: .integer(Int64(clamping: found.latestSequence)),
            LiveKey.changes: .array(found.changes.map(json)),
        ]
        if status == 503 { members[ControlBodyKey.error] = .string("the mock is stopping") }
        return ControlAPI.json(status, .object(members))
    }

    /// A push's change: `{"seq","kind":"push","apns_id","unique_id","device_token","topic","state","why","by","at"}`;
    /// a device's: `{"seq","kind":"connectivity","device_token","connectivity","at"}`.
    static func json(_ change: DeliveryChange) -> JSONValue {
        var members: [String: JSONValue] = [
            "seq": .integer(Int64(clamping: change.sequence)), "device_token": .string(change.deviceToken.hex), "at": time(change.at),
        ]
        switch change.what {
        case .push(let apnsID, let uniqueID, let topic, let event):
            members[LiveKey.kind] = .string("push")
            members["apns_id"] = .string(apnsID)
            members["topic"] = .string(topic)
            if let uniqueID { members["unique_id"] = .string(uniqueID) }
            for (name, value) in json(event) { members[name] = value }
        case .connectivity(let connectivity, _):
            members[LiveKey.kind] = .string("connectivity")
            members["connectivity"] = .string(connectivity.rawValue)
        }
        return .object(members)
    }
}
