import HermesContract
import PushRules
import StrictJSON
import Testing

/// The `hermes` profile passes exactly the pushes contract §3 describes and fails each
/// single deviation from it.
struct HermesProfileTests {
    @Test(arguments: HermesPushType.allCases)
    func theContractsPayloadsPass(type: HermesPushType) {
        let findings = Fixtures.findings(Fixtures.hermes(type), [.hermes, .apple])
        #expect(findings.isEmpty, "\(findings)")
    }

    @Test func sessionIDsAtTheEdgesOfThePatternPass() {
        for session in ["a", String(repeating: "x", count: 128), "A1.b_c:d-e"] {
            #expect(Fixtures.findings(Fixtures.hermes(.clarify, session: session), [.hermes]).isEmpty, "\(session)")
        }
    }

    /// One deviation each, and the rule that must catch it.
    static let deviations: [(String, HermesPushType, String, @Sendable (inout [String: JSONValue]) -> Void)] = [
        ("an extra top-level key", .approval, "hermes.allowed-keys", { $0["message"] = "hi" }),
        ("an extra aps key", .complete, "hermes.allowed-keys", { $0.set(["aps", "mutable-content"], 1) }),
        ("an extra alert key", .complete, "hermes.allowed-keys", { $0.set(["aps", "alert", "subtitle"], "x") }),
        ("a changed title", .approval, "hermes.allowed-values", { $0.set(["aps", "alert", "title"], "Approve rm -rf?") }),
        ("another type's title", .clarify, "hermes.allowed-values", { $0.set(["aps", "alert", "title"], "Approval needed") }),
        ("a changed body", .error, "hermes.allowed-values", { $0.set(["aps", "alert", "body"], "Hermes ran into a problem.") }),
        ("a missing badge on an approval", .approval, "hermes.badge", { $0.set(["aps", "badge"], nil) }),
        ("a negative badge", .approval, "hermes.badge", { $0.set(["aps", "badge"], -1) }),
        ("a string badge", .approval, "hermes.badge", { $0.set(["aps", "badge"], "1") }),
        ("a badge on a non-approval", .complete, "hermes.badge", { $0.set(["aps", "badge"], 1) }),
        ("thread-id != session_id", .approval, "hermes.equal-fields", { $0.set(["aps", "thread-id"], "other-session") }),
        ("a missing thread-id", .clarify, "hermes.required-keys", { $0.set(["aps", "thread-id"], nil) }),
        ("a missing session_id", .clarify, "hermes.identifiers", { $0["session_id"] = nil }),
        ("an empty session_id", .clarify, "hermes.identifiers", { $0["session_id"] = ""; $0.set(["aps", "thread-id"], "") }),
        ("a session_id with a path", .error, "hermes.identifiers", {
            $0["session_id"] = "../etc/passwd"; $0.set(["aps", "thread-id"], "../etc/passwd")
        }),
        ("a command leaked into the body", .complete, "hermes.leaks", { $0.set(["aps", "alert", "body"], "ran `rm -rf /tmp/build`") }),
        ("an e-mail leaked into the title", .clarify, "hermes.leaks", { $0.set(["aps", "alert", "title"], "ask ann@example.com") }),
        ("a wrong category", .approval, "hermes.allowed-values", { $0.set(["aps", "category"], "HERMES_COMPLETE") }),
        ("a lower-case category", .error, "hermes.allowed-values", { $0.set(["aps", "category"], "hermes_error") }),
        ("a missing category", .error, "hermes.required-keys", { $0.set(["aps", "category"], nil) }),
        ("an unknown type", .error, "hermes.allowed-values", { $0["type"] = "reminder" }),
        ("a sound other than default", .approval, "hermes.allowed-values", { $0.set(["aps", "sound"], "chime.caf") }),
        ("an alert string instead of a dictionary", .approval, "hermes.required-keys", {
            $0.set(["aps", "alert"], "Approval needed")
        }),
    ]

    @Test(arguments: deviations.indices)
    func eachPayloadDeviationFails(index: Int) {
        let (name, type, rule, edit) = Self.deviations[index]
        let failed = Fixtures.failedRules(Fixtures.hermes(type, editing: edit), [.hermes])
        #expect(failed.contains(rule), "\(name): expected \(rule), got \(failed.sorted())")
    }

    @Test func wrongHeadersFail() {
        func failures(_ edit: (inout PushHeaders) -> Void) -> Set<String> {
            var push = Fixtures.hermes(.approval)
            edit(&push.headers)
            return Set(Fixtures.findings(push, [.hermes]).map { "\($0.rule) \($0.path)" })
        }
        #expect(failures { $0.pushType = "background" }.contains("hermes.headers header:apns-push-type"))
        #expect(failures { $0.priority = 5 }.contains("hermes.headers header:apns-priority"))
        #expect(failures { $0.priority = nil }.contains("hermes.headers header:apns-priority"))
        #expect(failures { $0.expiration = nil }.contains("hermes.headers header:apns-expiration"))
        #expect(failures { $0.expiration = Fixtures.sentAt - 1 }.contains("hermes.headers header:apns-expiration"))
        #expect(failures { $0.expiration = Fixtures.sentAt + 7 * 86_400 }.contains("hermes.headers header:apns-expiration"))
        #expect(failures { $0.collapseID = nil }.contains("hermes.headers header:apns-collapse-id"))
        #expect(failures { $0.collapseID = "approval:other" }.contains("hermes.collapse-id header:apns-collapse-id"))
        #expect(failures { $0.apnsID = nil }.contains("hermes.headers header:apns-id"))
        #expect(failures { $0.apnsID = "not-a-uuid" }.contains("hermes.headers header:apns-id"))
        #expect(failures { $0.topic = nil }.contains("hermes.topic header:apns-topic"))
        #expect(failures { $0.topic = "com.example.app.voip" }.contains("hermes.topic header:apns-topic"))
    }

    @Test func aLongSessionUsesTheHashedCollapseID() {
        let session = String(repeating: "s", count: 100)
        let push = Fixtures.hermes(.complete, session: session)
        #expect(push.headers.collapseID?.hasPrefix("complete:#") == true)
        #expect(Fixtures.findings(push, [.hermes, .apple]).isEmpty)
    }

    @Test func findingsNameTheirPathAndKeepTheValueOutOfTheMessage() {
        let push = Fixtures.hermes(.complete) { $0.set(["aps", "alert", "body"], "mail ann@example.com") }
        let leak = Fixtures.findings(push, [.hermes]).first { $0.rule == "hermes.leaks" }
        #expect(leak?.detector == "email")
        #expect(leak?.path.description == "aps.alert.body")
        #expect(leak?.message.contains("ann@example.com") == false)
        #expect(leak?.value == #""mail ann@example.com""#)
    }
}
