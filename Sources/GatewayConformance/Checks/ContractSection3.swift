import APNsCore
import HermesContract
import StrictJSON

/// Contract §3 for one captured push: the headers and payload the gateway must send for a
/// push of `type` about `session`.
///
/// This is the `hermes` profile of push-inspect stated directly; when `PushRules` is in the
/// build, check 1 runs that profile as well.
enum ContractSection3 {
    /// What is wrong with `push`; empty when it is exactly what the contract asks for.
    static func problems(_ push: CapturedPush, type: HermesPushType, session: String, topic: String?) -> [String] {
        var problems: [String] = []
        func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
            if !condition { problems.append(message()) }
        }
        expect(push.header("apns-push-type") == HermesNotification.pushType,
               "apns-push-type is \(push.header("apns-push-type") ?? "absent"), expected alert")
        expect(push.header("apns-priority") == String(HermesNotification.priority),
               "apns-priority is \(push.header("apns-priority") ?? "absent"), expected 10")
        if let topic {
            expect(push.header("apns-topic") == topic, "apns-topic is \(push.header("apns-topic") ?? "absent"), expected \(topic)")
        }
        expect(push.header("apns-id").map(APNsIDGenerator.isCanonicalUUID) == true, "apns-id is missing or not a lowercase UUID")
        if let expiration = push.header("apns-expiration").flatMap({ Int64($0) }) {
            if let received = push.receivedAt {
                expect(expiration > received, "apns-expiration \(expiration) is not after the push arrived (\(received))")
                expect(expiration <= received + type.expirationInterval + 60,
                       "apns-expiration is more than \(type.expirationInterval) s after sending")
            }
        } else {
            problems.append("apns-expiration is missing or not UNIX seconds")
        }
        let collapse = push.header("apns-collapse-id")
        expect(collapse == HermesCollapseID.make(type: type, sessionID: session),
               "apns-collapse-id is \(collapse ?? "absent"), expected \(HermesCollapseID.make(type: type, sessionID: session))")
        expect(push.status == 200, "the mock answered \(push.status) \(push.reason ?? "")")

        guard case .object(var root)? = try? JSONParser.parse(push.payload, maximumDepth: 16) else {
            problems.append("the payload is not a JSON object")
            return problems
        }
        guard case .object(var expected)? = try? JSONParser.parse(HermesNotification(type: type, sessionID: session).payload()),
              case .object(var aps)? = root["aps"], case .object(var expectedAPS)? = expected["aps"] else {
            problems.append("the payload has no aps object")
            return problems
        }
        // The badge's value is the app's count, not fixed: only its presence and type are.
        let badge = aps.removeValue(forKey: "badge")
        expectedAPS.removeValue(forKey: "badge")
        if type.carriesBadge {
            if case .integer(let value)? = badge {
                expect(value >= 0, "aps.badge is negative")
            } else {
                problems.append("aps.badge must be a non-negative integer for \(type.rawValue)")
            }
        } else {
            expect(badge == nil, "aps.badge must be absent for \(type.rawValue)")
        }
        root["aps"] = .object(aps)
        expected["aps"] = .object(expectedAPS)
        for key in Set(root.keys).union(expected.keys).sorted() where root[key] != expected[key] {
            if key == "aps" {
                for apsKey in Set(aps.keys).union(expectedAPS.keys).sorted() where aps[apsKey] != expectedAPS[apsKey] {
                    problems.append(aps[apsKey] == nil ? "aps.\(apsKey) is missing"
                        : expectedAPS[apsKey] == nil ? "aps.\(apsKey) is not allowed" : "aps.\(apsKey) has the wrong value")
                }
            } else {
                problems.append(root[key] == nil ? "\(key) is missing" : expected[key] == nil ? "\(key) is not allowed" : "\(key) has the wrong value")
            }
        }
        return problems
    }
}
