import HermesContract
import PushRules
import StrictJSON

/// Pushes to check, built the way the gateway builds them.
enum Fixtures {
    static let sentAt: Int64 = 1_795_958_793
    static let session = "20261130_154126_a1b2c3"

    /// The headers the contract fixes for a Hermes push of `type`.
    static func hermesHeaders(_ type: HermesPushType, session: String = session) -> PushHeaders {
        let notification = HermesNotification(type: type, sessionID: session)
        return PushHeaders(
            pushType: HermesNotification.pushType, topic: "com.example.app", priority: HermesNotification.priority,
            expiration: notification.expiration(sentAt: sentAt), collapseID: notification.collapseID,
            apnsID: "8a2f1e3c-0000-4000-8000-00000000abcd", deviceToken: String(repeating: "ab", count: 32))
    }

    /// A Hermes push exactly as the contract describes it.
    static func hermes(_ type: HermesPushType, session: String = session) -> PushInput {
        PushInput(headers: hermesHeaders(type, session: session), payload: HermesNotification(type: type, sessionID: session).payload(),
                  sentAt: sentAt)
    }

    /// A Hermes push whose payload was changed by `edit`.
    static func hermes(_ type: HermesPushType, editing edit: (inout [String: JSONValue]) -> Void) -> PushInput {
        var push = hermes(type)
        guard case .object(var members)? = push.payload else { return push }
        edit(&members)
        push.payload = .object(members)
        return push
    }

    /// A push of `payload` (JSON text) with the given headers.
    static func push(_ payload: String, type: String? = "alert", topic: String? = "com.example.app", priority: Int? = 10,
                     expiration: Int64? = nil, collapseID: String? = nil, apnsID: String? = nil) -> PushInput {
        PushInput(headers: PushHeaders(pushType: type, topic: topic, priority: priority, expiration: expiration, collapseID: collapseID,
                                       apnsID: apnsID),
                  payload: Array(payload.utf8), sentAt: sentAt)
    }

    /// The findings of the rules of `profiles` (without apple unless listed) on `push`.
    static func findings(_ push: PushInput, _ profiles: [BuiltInProfile]) -> [Finding] {
        RuleSet(profiles: profiles, now: sentAt).check(push).findings
    }

    /// The ids of the rules that failed.
    static func failedRules(_ push: PushInput, _ profiles: [BuiltInProfile]) -> Set<String> {
        Set(findings(push, profiles).map(\.rule))
    }
}

extension Dictionary where Key == String, Value == JSONValue {
    /// Sets a member of a nested object (`["aps", "badge"]`), creating nothing: the parents must exist.
    mutating func set(_ path: [String], _ value: JSONValue?) {
        guard let first = path.first else { return }
        if path.count == 1 {
            self[first] = value
            return
        }
        guard case .object(var child)? = self[first] else { return }
        child.set(Array(path.dropFirst()), value)
        self[first] = .object(child)
    }
}
