import StrictJSON

/// The APNs notification the gateway sends for one plugin request (contract §3): its
/// headers and its payload, nothing more.
///
/// The app side parses the same payload back with ``init(payload:)``, so the two ends
/// cannot drift apart.
public struct HermesNotification: Sendable, Hashable {
    /// The event.
    public var type: HermesPushType
    /// The session it is about; also `aps.thread-id` and the deep-link target.
    public var sessionID: String
    /// `aps.badge` for approvals (the app's pending-approval badge); nil for the others.
    public var badge: Int?

    /// The `apns-push-type` header: always `alert`.
    public static let pushType = "alert"
    /// The `apns-priority` header: always 10, shown at once.
    public static let priority = 10
    /// `aps.sound`.
    public static let sound = "default"

    /// A notification of `type` about `sessionID`; approvals carry badge 1, because the
    /// stateless gateway knows of one pending approval: this one.
    public init(type: HermesPushType, sessionID: String) {
        self.type = type
        self.sessionID = sessionID
        self.badge = type.carriesBadge ? 1 : nil
    }

    /// `apns-collapse-id`.
    public var collapseID: String { HermesCollapseID.make(type: type, sessionID: sessionID) }

    /// `apns-expiration` for a push sent at `now` (UNIX seconds).
    public func expiration(sentAt now: Int64) -> Int64 { now + type.expirationInterval }

    /// The payload bytes, members in the contract's order:
    /// `{"aps":{"alert":{"title":…,"body":…},"sound":"default","thread-id":…,"category":…[,"badge":1]},"session_id":…,"type":…}`.
    public func payload() -> [UInt8] {
        // Written per push by the gateway: in one exactly sized array when the session id
        // needs no escape (always, for a push the gateway accepted), else string by string.
        let plain = HermesJSONOutput.compact { output in
            output.append(#"{"aps":{"alert":{"title":"#)
            output.appendQuoted(type.title)
            output.append(#","body":"#)
            output.appendQuoted(type.body)
            output.append(#"},"sound":"#)
            output.appendQuoted(Self.sound)
            output.append(#","thread-id":"#)
            output.appendQuoted(sessionID)
            output.append(#","category":"#)
            output.appendQuoted(type.category)
            if let badge {
                output.append(#","badge":"#)
                output.appendDecimal(badge)
            }
            output.append(#"},"session_id":"#)
            output.appendQuoted(sessionID)
            output.append(#","type":"#)
            output.appendQuoted(type.rawValue)
            output.append(UInt8(ascii: "}"))
        }
        return plain ?? escapedPayload()
    }

    /// ``payload()`` through `JSONWriter`, which escapes what needs it.
    private func escapedPayload() -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        output.append(contentsOf: #"{"aps":{"alert":{"title":"#.utf8)
        JSONWriter.writeString(type.title, into: &output)
        output.append(contentsOf: #","body":"#.utf8)
        JSONWriter.writeString(type.body, into: &output)
        output.append(contentsOf: #"},"sound":"#.utf8)
        JSONWriter.writeString(Self.sound, into: &output)
        output.append(contentsOf: #","thread-id":"#.utf8)
        JSONWriter.writeString(sessionID, into: &output)
        output.append(contentsOf: #","category":"#.utf8)
        JSONWriter.writeString(type.category, into: &output)
        if let badge {
            output.append(contentsOf: #","badge":"#.utf8)
            output.append(contentsOf: String(badge).utf8)
        }
        output.append(contentsOf: #"},"session_id":"#.utf8)
        JSONWriter.writeString(sessionID, into: &output)
        output.append(contentsOf: #","type":"#.utf8)
        JSONWriter.writeString(type.rawValue, into: &output)
        output.append(UInt8(ascii: "}"))
        return output
    }

    /// Parses a received payload into a notification.
    ///
    /// Reads `type` (or, failing that, `aps.category`), `session_id` (or `aps.thread-id`)
    /// and `aps.badge`; the session id must match ``HermesSessionID``. Returns nil for a
    /// payload that is not a Hermes push, so the app can ignore it.
    public init?(payload bytes: [UInt8]) {
        guard case .object(let root)? = try? JSONParser.parse(bytes, maximumDepth: 8) else { return nil }
        let aps: [String: JSONValue]
        if case .object(let members)? = root["aps"] { aps = members } else { aps = [:] }
        let type = root["type"]?.stringValue.flatMap(HermesPushType.init(rawValue:))
            ?? aps["category"]?.stringValue.flatMap(HermesPushType.init(category:))
        guard let type,
              let sessionID = root["session_id"]?.stringValue ?? aps["thread-id"]?.stringValue,
              HermesSessionID.isValid(sessionID)
        else { return nil }
        self.type = type
        self.sessionID = sessionID
        if case .integer(let badge)? = aps["badge"], badge >= 0, badge <= Int64(Int32.max) {
            self.badge = Int(badge)
        } else {
            self.badge = nil
        }
    }
}
