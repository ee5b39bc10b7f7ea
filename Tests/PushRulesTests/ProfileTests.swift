import PushRules
import StrictJSON
import Testing

/// The built-in `privacy`, `badge` and `deep-link` profiles, the rule scopes, and reports.
struct ProfileTests {
    @Test func privacyFlagsContentAnywhereInThePayload() {
        #expect(Fixtures.findings(Fixtures.push(#"{"aps":{"alert":"New message"},"id":"m-1"}"#), [.privacy]).isEmpty)
        let findings = Fixtures.findings(Fixtures.push(#"{"aps":{"alert":"x"},"items":[{"from":"ann@example.com"}]}"#), [.privacy])
        #expect(findings.map { "\($0.rule) \($0.detector ?? "") \($0.path)" } == ["privacy.leaks email items[0].from"])
    }

    @Test func badgeProfileChecksTypeOnly() {
        #expect(Fixtures.findings(Fixtures.push(#"{"aps":{"badge":2}}"#), [.badge]).isEmpty)
        #expect(Fixtures.findings(Fixtures.push(#"{"aps":{"alert":"x"}}"#), [.badge]).isEmpty)
        #expect(Fixtures.failedRules(Fixtures.push(#"{"aps":{"badge":"2"}}"#), [.badge]) == ["badge.badge"])
    }

    @Test func deepLinkProfileChecksIdentifiersAndThreadAgreement() {
        #expect(Fixtures.findings(Fixtures.push(#"{"aps":{"thread-id":"s-1"},"session_id":"s-1","user_id":"u-9"}"#), [.deepLink]).isEmpty)
        #expect(Fixtures.failedRules(Fixtures.push(#"{"aps":{"thread-id":"s-2"},"session_id":"s-1"}"#), [.deepLink])
            == ["deep-link.thread-id"])
        #expect(Fixtures.failedRules(Fixtures.push(#"{"aps":{},"user_id":"ann smith"}"#), [.deepLink]) == ["deep-link.identifiers"])
    }

    /// No rule but apple.aps-shape reads a payload that did not parse, so without apple the
    /// set reports it itself: a duplicate key must not make a leaking payload pass.
    @Test func aPayloadThatDoesNotParseIsAFindingWithoutApple() throws {
        let unparsed = Fixtures.push(#"{"aps":{"alert":"mail ann@example.com"},"email":"bob@example.com","email":"x"}"#)
        let findings = RuleSet(profiles: [.privacy, .badge]).check(unparsed).findings
        #expect(findings.map(\.rule) == ["input.unjudged-payload"], "\(findings)")
        #expect(findings.first?.message.hasPrefix("the payload is not JSON: ") == true, "\(findings)")
        #expect(findings.first?.message.hasSuffix("; no rule could judge it") == true, "\(findings)")
        let policy = try Policy(json: Array(#"{"name":"app","required_keys":["aps"]}"#.utf8))
        #expect(RuleSet(profiles: [], policies: [policy]).check(Fixtures.push("{nope")).findings.map(\.rule)
            .contains("input.unjudged-payload"))

        // With apple, apple.aps-shape reports it, once; a payload that parses, or none, is not unjudged.
        #expect(RuleSet(profiles: [.apple, .privacy]).check(unparsed).findings.map(\.rule) == ["apple.aps-shape"])
        #expect(!RuleSet(profiles: [.apple]).ruleIDs.contains("input.unjudged-payload"))
        #expect(RuleSet(profiles: [.privacy]).check(Fixtures.push(#"{"aps":{"alert":"x"}}"#)).passed)
        #expect(RuleSet(profiles: [.privacy]).check(Fixtures.push("")).passed)
    }

    /// JSON that is not an object (APNs refuses it) has no keys for any rule but
    /// apple.aps-shape to read, so without apple it is reported as unjudged too.
    @Test func aPayloadThatIsNotAnObjectIsAFindingWithoutApple() throws {
        let cases = [("[1]", "an array"), (#""ann@example.com""#, "a string"), ("1", "a number"), ("true", "a boolean"), ("null", "null")]
        for (payload, kind) in cases {
            let findings = RuleSet(profiles: [.badge, .deepLink]).check(Fixtures.push(payload)).findings
            #expect(findings.map(\.rule) == ["input.unjudged-payload"], "\(payload): \(findings)")
            #expect(findings.first?.message == "the payload is \(kind), not a JSON object, which APNs takes; no rule could judge it",
                    "\(payload): \(findings)")
            #expect(RuleSet(profiles: [.apple, .badge]).check(Fixtures.push(payload)).findings.map(\.rule) == ["apple.aps-shape"],
                    "with apple, aps-shape alone reports it: \(payload)")
        }
    }

    @Test func scopesSelectByPushTypeTopicAndField() {
        let scope = RuleScope(pushTypes: ["alert"], topics: ["com.example.app"],
                              where: [.init(path: "type", equalsAnyOf: ["approval", "clarify"])])
        #expect(scope.contains(Fixtures.push(#"{"type":"clarify"}"#)))
        #expect(!scope.contains(Fixtures.push(#"{"type":"complete"}"#)))
        #expect(!scope.contains(Fixtures.push(#"{"type":"clarify"}"#, type: "background")))
        #expect(!scope.contains(Fixtures.push(#"{"type":"clarify"}"#, topic: "com.other")))
        #expect(!scope.contains(Fixtures.push(#"{}"#)))
    }

    @Test func jsonPathsRoundTrip() {
        for text in ["aps.alert.title", "aps.thread-id", "items[0].from", #"["a.b"].c"#, "header:apns-topic"] {
            #expect(JSONPath(parsing: text)?.description == text, "\(text)")
        }
        #expect(JSONPath(parsing: "a..b") == nil)
        #expect(JSONPath(parsing: "") == nil)
    }

    @Test func recordingAppliedRulesListsOnlyRulesInScope() {
        let rules = RuleSet(profiles: [.apple])
        let alert = rules.check(Fixtures.push(#"{"aps":{"alert":"x"}}"#), recordApplied: true)
        #expect(!alert.rulesApplied.contains("apple.background-priority"))
        #expect(alert.rulesApplied.contains("apple.payload-size"))
        #expect(rules.check(Fixtures.push(#"{"aps":{"alert":"x"}}"#)).rulesApplied.isEmpty)
        let untypedBackground = rules.check(Fixtures.push(#"{"aps":{"content-available":1}}"#, type: nil), recordApplied: true)
        #expect(untypedBackground.rulesApplied.contains("apple.background-priority"))
        let untypedAlert = rules.check(Fixtures.push(#"{"aps":{"alert":"x"}}"#, type: nil), recordApplied: true)
        #expect(!untypedAlert.rulesApplied.contains("apple.background-priority"))
    }
}

/// The example in docs/push-inspect.md ("In Swift"), kept compiling and true.
struct PushRulesDocumentationExampleTests {
    @Test func theDocumentedExampleFindsTheExtraKey() throws {
        let policyBytes = Array(#"{"name":"app","leaks":{"detectors":["email"]}}"#.utf8)
        let payloadBytes = Array(#"{"aps":{"alert":"hi"},"foo":1}"#.utf8)
        let rules = RuleSet(profiles: [.hermes, .apple], policies: [try Policy(json: policyBytes)])
        let push = PushInput(headers: PushHeaders(pushType: "alert", topic: "com.example.app", priority: 10),
                             payload: payloadBytes)
        let findings = rules.check(push).findings
        #expect(findings.contains { $0.description == "hermes.allowed-keys at foo: this key is not in the allowed keys" })
    }
}
