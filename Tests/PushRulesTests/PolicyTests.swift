import StrictJSON
import Testing
@testable import PushRules

/// Policy files: every section, with a passing and a failing push, and clear errors.
struct PolicyTests {
    static func policy(_ json: String) throws -> Policy {
        try Policy(json: Array(json.utf8))
    }

    static func failed(_ policy: Policy, _ payload: String, type: String = "alert") -> [String] {
        RuleSet(profiles: [], policies: [policy]).check(Fixtures.push(payload, type: type)).findings.map { "\($0.rule) \($0.path)" }
    }

    @Test func allowedKeys() throws {
        let policy = try Self.policy(#"{"name":"app","allowed_keys":["aps.alert","aps.badge","id","meta.*"]}"#)
        #expect(Self.failed(policy, #"{"aps":{"alert":{"title":"x"},"badge":1},"id":"a","meta":{"k":{"deep":1}}}"#).isEmpty)
        #expect(Self.failed(policy, #"{"aps":{"sound":"x"},"id":"a","extra":[{"a":1}]}"#) == ["app.allowed-keys aps.sound", "app.allowed-keys extra"])
    }

    @Test func requiredKeysWithScopes() throws {
        let policy = try Self.policy(#"{"name":"app","required_keys":["id",{"path":"aps.badge","scope":{"where":{"kind":"count"}}}]}"#)
        #expect(Self.failed(policy, #"{"id":"a","kind":"other","aps":{}}"#).isEmpty)
        #expect(Self.failed(policy, #"{"kind":"count","aps":{}}"#) == ["app.required-keys id", "app.required-keys aps.badge"])
    }

    @Test func allowedValuesExactOrPattern() throws {
        let policy = try Self.policy("""
            {"name":"app","allowed_values":[{"path":"kind","values":["a","b",3]},{"path":"ref","patterns":["r-\\\\d{1,4}"]},
             {"path":"title","values":["Hi"],"scope":{"push_types":["alert"]}}]}
            """)
        #expect(Self.failed(policy, #"{"kind":3,"ref":"r-12","title":"Hi"}"#).isEmpty)
        #expect(Self.failed(policy, #"{"kind":"c","ref":"r-12345","title":"Other"}"#)
            == ["app.allowed-values kind", "app.allowed-values ref", "app.allowed-values title"])
        #expect(Self.failed(policy, #"{"title":"Other"}"#, type: "background").isEmpty)
    }

    @Test func leakDetectorsThresholdsAndExemptions() throws {
        let policy = try Self.policy(#"{"name":"p","leaks":{"detectors":["email","free-text"],"free_text_words":3,"exempt":["contact"]}}"#)
        #expect(Self.failed(policy, #"{"contact":"ann@example.com","t":"two words"}"#).isEmpty)
        #expect(Self.failed(policy, #"{"note":"ann@example.com","t":"three whole words"}"#) == ["p.leaks note", "p.leaks t"])
    }

    @Test func badgePresenceAndMaximum() throws {
        let policy = try Self.policy("""
            {"name":"b","badge":[{"presence":"required","maximum":99,"scope":{"where":{"type":["approval"]}}},
             {"presence":"forbidden","scope":{"where":{"type":"done"}}}]}
            """)
        #expect(Self.failed(policy, #"{"aps":{"badge":3},"type":"approval"}"#).isEmpty)
        #expect(Self.failed(policy, #"{"aps":{},"type":"done"}"#).isEmpty)
        #expect(Self.failed(policy, #"{"aps":{},"type":"approval"}"#) == ["b.badge aps.badge"])
        #expect(Self.failed(policy, #"{"aps":{"badge":100},"type":"approval"}"#) == ["b.badge aps.badge"])
        #expect(Self.failed(policy, #"{"aps":{"badge":1},"type":"done"}"#) == ["b.badge aps.badge"])
    }

    @Test func deepLinkIdentifiersEqualityAndURLs() throws {
        let policy = try Self.policy("""
            {"name":"d","identifiers":[{"path":"session_id","pattern":"s-[0-9]+"}],
             "equal_fields":[["session_id","aps.thread-id"]],
             "url_links":[{"path":"link","scheme":"app","host":"session","path_template":"/open/{id}","id_field":"session_id"}]}
            """)
        #expect(Self.failed(policy, #"{"aps":{"thread-id":"s-1"},"session_id":"s-1","link":"app://session/open/s-1"}"#).isEmpty)
        #expect(Self.failed(policy, #"{"aps":{"thread-id":"s-2"},"session_id":"s-1","link":"app://session/open/s-2"}"#)
            == ["d.equal-fields aps.thread-id", "d.url-links link"])
        #expect(Self.failed(policy, #"{"aps":{"thread-id":"x"},"session_id":"x"}"#) == ["d.identifiers session_id"])
        #expect(Self.failed(policy, #"{"aps":{"thread-id":"s-1"},"session_id":"s-1","link":"web://session/open/s-1"}"#)
            == ["d.url-links link"])
        #expect(Self.failed(policy, #"{"aps":{"thread-id":"s-1"},"session_id":"s-1","link":"app://other/open/s-1"}"#)
            == ["d.url-links link"])
        #expect(Self.failed(policy, #"{"aps":{"thread-id":"s-1"},"session_id":"s-1","link":"app://session/s-1"}"#)
            == ["d.url-links link"])
    }

    /// A scope's `pushTypes` match the type APNs goes by, as the `apple` rules judge it: a
    /// push sent without `apns-push-type` to a `.voip` topic is a VoIP push for a policy
    /// scoped to `voip`, and a content-available-only one to a plain topic a background push.
    @Test func scopesMatchThePushTypeAPNsGoesBy() throws {
        let policy = try Self.policy("""
            {"name":"v","scope":{"push_types":["voip"]},"required_keys":["call_id"],
             "allowed_values":[{"path":"kind","values":["ring"],"scope":{"push_types":["voip"]}}]}
            """)
        func failed(_ payload: String, type: String?, topic: String) -> [String] {
            RuleSet(profiles: [], policies: [policy]).check(Fixtures.push(payload, type: type, topic: topic))
                .findings.map { "\($0.rule) \($0.path)" }
        }
        let voipTopic = "com.example.app.voip"
        #expect(failed(#"{"aps":{},"kind":"hang"}"#, type: nil, topic: voipTopic) == ["v.required-keys call_id", "v.allowed-values kind"],
                "untyped to a .voip topic: a VoIP push")
        #expect(failed(#"{"aps":{},"kind":"hang"}"#, type: "voip", topic: voipTopic) == ["v.required-keys call_id", "v.allowed-values kind"])
        #expect(failed(#"{"aps":{},"call_id":"c","kind":"ring"}"#, type: nil, topic: voipTopic).isEmpty)
        #expect(failed(#"{"aps":{"alert":"x"}}"#, type: nil, topic: "com.example.app").isEmpty, "untyped to a plain topic: an alert push")
        #expect(failed(#"{"aps":{"alert":"x"}}"#, type: "alert", topic: voipTopic).isEmpty, "the header, when sent, is the type")

        let background = try Self.policy(#"{"name":"b","scope":{"push_types":["background"]},"required_keys":["sync"]}"#)
        let alert = try Self.policy(#"{"name":"a","scope":{"push_types":["alert"]},"required_keys":["id"]}"#)
        let silent = Fixtures.push(#"{"aps":{"content-available":1}}"#, type: nil, priority: 5)
        #expect(RuleSet(profiles: [], policies: [background, alert]).check(silent).findings.map(\.rule) == ["b.required-keys"],
                "untyped with only content-available: a background push, not an alert push")
        let apple = RuleSet(profiles: [.apple], policies: [background]).check(silent).findings.map(\.rule)
        #expect(apple.contains("b.required-keys") && !apple.contains("apple.background-priority"), "\(apple)")
    }

    @Test func headerRequirements() throws {
        let policy = try Self.policy("""
            {"name":"h","headers":[{"push_types":["alert"],"priorities":[10],"topics":["com.example.app"],"require_collapse_id":true}]}
            """)
        let good = RuleSet(profiles: [], policies: [policy]).check(Fixtures.push("{}", collapseID: "c"))
        #expect(good.passed)
        let bad = RuleSet(profiles: [], policies: [policy])
            .check(Fixtures.push("{}", type: "background", topic: "com.other", priority: 5))
        #expect(bad.findings.map(\.path.description)
            == ["header:apns-push-type", "header:apns-priority", "header:apns-topic", "header:apns-collapse-id"])
    }

    /// Every policy key spelt in camelCase is refused, naming its snake_case name, in every
    /// section it belongs to.
    @Test(arguments: [
        (#"{"allowedKeys":[]}"#, "allowedKeys", "allowed_keys"),
        (#"{"requiredKeys":[]}"#, "requiredKeys", "required_keys"),
        (#"{"allowedValues":[]}"#, "allowedValues", "allowed_values"),
        (#"{"equalFields":[]}"#, "equalFields", "equal_fields"),
        (#"{"urlLinks":[]}"#, "urlLinks", "url_links"),
        (#"{"scope":{"pushTypes":["alert"]}}"#, "scope.pushTypes", "push_types"),
        (#"{"required_keys":[{"path":"a","scope":{"pushTypes":[]}}]}"#, "required_keys[0].scope.pushTypes", "push_types"),
        (#"{"leaks":{"freeTextWords":3}}"#, "leaks.freeTextWords", "free_text_words"),
        (#"{"leaks":{"freeTextLength":3}}"#, "leaks.freeTextLength", "free_text_length"),
        (#"{"leaks":{"secretHexLength":3}}"#, "leaks.secretHexLength", "secret_hex_length"),
        (#"{"leaks":{"secretBase64Length":3}}"#, "leaks.secretBase64Length", "secret_base64_length"),
        (#"{"leaks":{"phoneDigits":3}}"#, "leaks.phoneDigits", "phone_digits"),
        (#"{"url_links":[{"path":"l","scheme":"s","pathTemplate":"/x"}]}"#, "url_links[0].pathTemplate", "path_template"),
        (#"{"url_links":[{"path":"l","scheme":"s","idPattern":"x"}]}"#, "url_links[0].idPattern", "id_pattern"),
        (#"{"url_links":[{"path":"l","scheme":"s","idField":"x"}]}"#, "url_links[0].idField", "id_field"),
        (#"{"headers":[{"pushTypes":["alert"]}]}"#, "headers[0].pushTypes", "push_types"),
        (#"{"headers":[{"requirePriority":true}]}"#, "headers[0].requirePriority", "require_priority"),
        (#"{"headers":[{"requireExpiration":true}]}"#, "headers[0].requireExpiration", "require_expiration"),
        (#"{"headers":[{"maximumExpirationDelay":60}]}"#, "headers[0].maximumExpirationDelay", "maximum_expiration_delay"),
        (#"{"headers":[{"requireCollapseId":true}]}"#, "headers[0].requireCollapseId", "require_collapse_id"),
        (#"{"headers":[{"requireApnsId":true}]}"#, "headers[0].requireApnsId", "require_apns_id"),
    ])
    func aCamelCaseKeyIsRefusedNamingItsNewName(json: String, location: String, newName: String) {
        #expect(throws: PolicyError(location, #"unknown key; it is now "\#(newName)""#)) { try Policy(json: Array(json.utf8)) }
    }

    /// Every key a policy file takes is snake_case.
    @Test func policyKeysAreSnakeCase() {
        let keys = PolicyKey.root.union(PolicyKey.URLLink.all).union(PolicyKey.Scope.all).union(PolicyKey.Leaks.all)
            .union(PolicyKey.Headers.all)
            .union([PolicyKey.path, PolicyKey.paths, PolicyKey.values, PolicyKey.patterns, PolicyKey.pattern, PolicyKey.required,
                    PolicyKey.presence, PolicyKey.maximum])
        #expect(keys.filter { JSONKeyConvention.snakeCase($0) != $0 }.sorted() == [])
    }

    /// The keys of a scope's `where` are payload paths, which keep the payload's spelling.
    @Test func whereKeysKeepThePayloadsSpelling() throws {
        let policy = try Policy(json: Array(#"{"name":"w","scope":{"where":{"eventType":"x"}},"required_keys":["sessionId"]}"#.utf8))
        #expect(policy.scope.contains(Fixtures.push(#"{"aps":{},"eventType":"x"}"#)))
        #expect(!policy.scope.contains(Fixtures.push(#"{"aps":{},"eventType":"y"}"#)))
        let rules = RuleSet(profiles: [], policies: [policy])
        #expect(rules.check(Fixtures.push(#"{"aps":{},"eventType":"x","sessionId":"s"}"#)).findings.isEmpty)
        #expect(rules.check(Fixtures.push(#"{"aps":{},"eventType":"x"}"#)).findings.map(\.rule) == ["w.required-keys"])
    }

    @Test func errorsNameTheirLocation() {
        func error(_ json: String) -> String {
            do {
                _ = try Policy(json: Array(json.utf8))
                return "no error"
            } catch {
                return error.description
            }
        }
        #expect(error("{") .hasPrefix("not JSON"))
        #expect(error(#"{"allowedkeys":[]}"#).hasPrefix("allowedkeys: unknown key"))
        #expect(error(#"{"allowed_values":[{"path":"a","patterns":["[x"]}]}"#).hasPrefix("allowed_values[0].patterns[0]: pattern"))
        #expect(error(#"{"leaks":{"detectors":["emails"]}}"#).hasPrefix("leaks.detectors[0]: unknown detector"))
        #expect(error(#"{"badge":[{"presence":"always"}]}"#) == "badge[0].presence: must be required, optional or forbidden")
        #expect(error(#"{"equal_fields":[["a"]]}"#) == "equal_fields[0]: list at least two paths")
        #expect(error(#"{"headers":[{"priorities":[7]}]}"#) == "headers[0].priorities[0]: must be 1, 5 or 10")
        #expect(error(#"{"allowed_keys":["a..b"]}"#).hasPrefix("allowed_keys[0]: not a path"))
        // A misspelt push type matched no push, so the policy it scoped never applied.
        #expect(error(#"{"scope":{"push_types":["alert","alret"]}}"#)
            .hasPrefix(#"scope.push_types[1]: unknown push type "alret"; expected one of alert, background, "#))
        #expect(error(#"{"headers":[{"push_types":["nope"]}]}"#).hasPrefix(#"headers[0].push_types[0]: unknown push type "nope""#))
        #expect(error(#"{"scope":{"push_types":["voip"]}}"#) == "no error")
        // A negative maximum no push can meet would fail every push it applies to.
        #expect(error(#"{"badge":[{"maximum":-1}]}"#) == "badge[0].maximum: must be an integer ≥ 0, found -1")
        #expect(error(#"{"headers":[{"maximum_expiration_delay":-3600}]}"#)
            == "headers[0].maximum_expiration_delay: must be an integer ≥ 0, found -3600")
        #expect(error(#"{"badge":[{"maximum":0}],"headers":[{"maximum_expiration_delay":0}]}"#) == "no error")
        // The name prefixes rule ids printed unescaped: nothing a terminal acts on, no ".",
        // and not a built-in profile's, whose counts it would merge with.
        let charset = "must be 1 to 64 ASCII letters, digits, - or _, starting with a letter"
        #expect(error(#"{"name":"my\u001b[31m\u202eapp\nFAKE LINE"}"#)
            == #"name: \#(charset) (it prefixes the rule ids, as in myapp.allowed-keys); found "my\u001b[31m\u202eapp\nFAKE LINE""#)
        for bad in ["my.app", "my app", "", "-app", "1app", "café", String(repeating: "a", count: 65)] {
            #expect(error(#"{"name":"\#(bad)"}"#).hasPrefix("name: \(charset)"), "\(bad)")
        }
        #expect(error(#"{"name":"apple"}"#)
            == #"name: "apple" is the name of a built-in profile, whose rule ids would mix with this policy's; choose another name"#)
        #expect(error(#"{"name":"deep-link"}"#).hasPrefix(#"name: "deep-link" is the name of a built-in profile"#))
        for good in ["app", "Hermes-Push", "my_app2", String(repeating: "a", count: 64)] {
            #expect(error(#"{"name":"\#(good)"}"#) == "no error", "\(good)")
        }
    }
}
