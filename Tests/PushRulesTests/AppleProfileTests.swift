import PushRules
import Testing

/// Each rule of the `apple` profile, with a push that passes it and one that fails it.
struct AppleProfileTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var rule: String
        var passing: PushInput
        var failing: PushInput
        var testDescription: String { rule }
    }

    static let alert = #"{"aps":{"alert":{"title":"Hi","body":"There"}}}"#
    static let background = #"{"aps":{"content-available":1}}"#

    static let cases: [Case] = [
        Case(rule: "apple.push-type", passing: Fixtures.push(alert), failing: Fixtures.push(alert, type: "notification")),
        Case(rule: "apple.priority", passing: Fixtures.push(alert, priority: 1), failing: Fixtures.push(alert, priority: 7)),
        Case(rule: "apple.background-priority", passing: Fixtures.push(background, type: "background", priority: 5),
             failing: Fixtures.push(background, type: "background", priority: 10)),
        Case(rule: "apple.liveactivity-priority",
             passing: Fixtures.push(#"{"aps":{"event":"update","timestamp":1,"content-state":{}}}"#, type: "liveactivity",
                                    topic: "com.example.app.push-type.liveactivity", priority: 5),
             failing: Fixtures.push(#"{"aps":{"event":"update","timestamp":1,"content-state":{}}}"#, type: "liveactivity",
                                    topic: "com.example.app.push-type.liveactivity", priority: 1)),
        Case(rule: "apple.topic-suffix", passing: Fixtures.push(#"{"aps":{}}"#, type: "voip", topic: "com.example.app.voip"),
             failing: Fixtures.push(#"{"aps":{}}"#, type: "voip", topic: "com.example.app")),
        Case(rule: "apple.collapse-id", passing: Fixtures.push(alert, collapseID: String(repeating: "c", count: 64)),
             failing: Fixtures.push(alert, collapseID: String(repeating: "c", count: 65))),
        Case(rule: "apple.apns-id", passing: Fixtures.push(alert, apnsID: "123e4567-e89b-12d3-a456-426614174000"),
             failing: Fixtures.push(alert, apnsID: "123e4567-e89b-12d3-a456-42661417400")),
        Case(rule: "apple.expiration", passing: Fixtures.push(alert, expiration: Fixtures.sentAt + 60),
             failing: Fixtures.push(alert, expiration: Fixtures.sentAt - 60)),
        Case(rule: "apple.payload-size",
             passing: Fixtures.push(#"{"aps":{"alert":"x"},"d":"\#(String(repeating: "a", count: 4000))"}"#),
             failing: Fixtures.push(#"{"aps":{"alert":"x"},"d":"\#(String(repeating: "a", count: 4100))"}"#)),
        Case(rule: "apple.aps-shape", passing: Fixtures.push(alert), failing: Fixtures.push(#"{"aps":{"category":"X"}}"#)),
        Case(rule: "apple.aps-types", passing: Fixtures.push(#"{"aps":{"badge":0,"sound":"default"}}"#),
             failing: Fixtures.push(#"{"aps":{"badge":-1}}"#)),
        Case(rule: "apple.liveactivity",
             passing: Fixtures.push(#"{"aps":{"event":"update","timestamp":1,"content-state":{}}}"#, type: "liveactivity",
                                    topic: "com.example.app.push-type.liveactivity"),
             failing: Fixtures.push(#"{"aps":{"event":"update","content-state":{}}}"#, type: "liveactivity",
                                    topic: "com.example.app.push-type.liveactivity")),
        Case(rule: "apple.aps-unknown-key", passing: Fixtures.push(#"{"aps":{"alert":"x"},"custom":1}"#),
             failing: Fixtures.push(#"{"aps":{"alert":"x","custom":1}}"#)),
    ]

    @Test(arguments: cases)
    func eachRulePassesAndFails(_ test: Case) {
        #expect(!Fixtures.failedRules(test.passing, [.apple]).contains(test.rule))
        #expect(Fixtures.failedRules(test.failing, [.apple]).contains(test.rule))
    }

    @Test func knownKeyTypes() {
        func typeFindings(_ aps: String, type: String = "alert") -> [String] {
            Fixtures.findings(Fixtures.push(#"{"aps":\#(aps)}"#, type: type), [.apple])
                .filter { $0.rule == "apple.aps-types" }.map(\.path.description)
        }
        #expect(typeFindings(#"{"badge":"1"}"#) == ["aps.badge"])
        #expect(typeFindings(#"{"badge":1.5}"#) == ["aps.badge"])
        #expect(typeFindings(#"{"alert":"x","content-available":0}"#) == ["aps.content-available"])
        #expect(typeFindings(#"{"alert":"x","content-available":1}"#).isEmpty)
        #expect(typeFindings(#"{"sound":{"critical":1,"name":"a.caf","volume":0.5}}"#).isEmpty)
        #expect(typeFindings(#"{"sound":{"critical":1,"name":"a.caf","volume":2}}"#) == ["aps.sound"])
        #expect(typeFindings(#"{"sound":5}"#) == ["aps.sound"])
        #expect(typeFindings(#"{"alert":"x","interruption-level":"time-sensitive"}"#).isEmpty)
        #expect(typeFindings(#"{"alert":"x","interruption-level":"urgent"}"#) == ["aps.interruption-level"])
        #expect(typeFindings(#"{"alert":"x","relevance-score":0.5}"#).isEmpty)
        #expect(typeFindings(#"{"alert":"x","relevance-score":1.5}"#) == ["aps.relevance-score"])
        #expect(typeFindings(#"{"event":"update","timestamp":1,"content-state":{},"relevance-score":50}"#, type: "liveactivity").isEmpty)
        #expect(typeFindings(#"{"alert":{"title":1}}"#) == ["aps.alert.title"])
    }

    @Test func anUppercaseAPNsIDIsAFindingWithItsOwnMessage() {
        let findings = Fixtures.findings(Fixtures.push(Self.alert, apnsID: "123E4567-E89B-12D3-A456-426614174000"), [.apple])
            .filter { $0.rule == "apple.apns-id" }
        #expect(findings.map(\.message) == ["Apple documents apns-id as a lowercase UUID"])
        #expect(Fixtures.failedRules(Fixtures.push(Self.alert), [.apple]).contains("apple.apns-id") == false, "absent is fine")
    }

    @Test func unknownKeysOfACriticalAlertSoundAreFindings() {
        let push = Fixtures.push(#"{"aps":{"alert":"x","sound":{"critical":1,"name":"a.caf","volume":0.5,"loud":true}}}"#)
        let findings = Fixtures.findings(push, [.apple]).filter { $0.rule == "apple.aps-unknown-key" }
        #expect(findings.map(\.path.description) == [#"aps.sound.loud"#])
    }

    @Test func backgroundPushesCarryOnlyContentAvailable() {
        let failing = Fixtures.push(#"{"aps":{"alert":"x","content-available":1}}"#, type: "background", priority: 5)
        let paths = Fixtures.findings(failing, [.apple]).filter { $0.rule == "apple.aps-shape" }.map(\.path.description)
        #expect(paths == ["aps.alert"])
        let missing = Fixtures.push(#"{"aps":{}}"#, type: "background", priority: 5)
        #expect(Fixtures.findings(missing, [.apple]).map(\.path.description).contains("aps.content-available"))
    }

    @Test func voipMayUseFiveKilobytes() {
        let payload = #"{"aps":{},"d":"\#(String(repeating: "a", count: 5000))"}"#
        #expect(!Fixtures.failedRules(Fixtures.push(payload, type: "voip", topic: "com.example.app.voip"), [.apple])
            .contains("apple.payload-size"))
    }

    /// Without `apns-push-type`, APNs goes by the topic: a `.voip` topic makes a VoIP push,
    /// whose limit is 5120 bytes (the mock infers the type the same way). The missing header
    /// is still a finding of its own.
    @Test func anUntypedPushToAVoIPTopicMayUseFiveKilobytes() {
        let fits = #"{"aps":{},"d":"\#(String(repeating: "a", count: 5000))"}"#
        let untyped = Fixtures.failedRules(Fixtures.push(fits, type: nil, topic: "com.example.app.voip"), [.apple])
        #expect(!untyped.contains("apple.payload-size"), "\(untyped)")
        #expect(untyped.contains("apple.push-type"))
        let tooLarge = #"{"aps":{},"d":"\#(String(repeating: "a", count: 5200))"}"#
        let findings = Fixtures.findings(Fixtures.push(tooLarge, type: nil, topic: "com.example.app.voip"), [.apple])
            .filter { $0.rule == "apple.payload-size" }
        #expect(findings.map(\.message) == [
            "the payload is 5217 bytes; a voip push (inferred: no apns-push-type) may have 5120 (PayloadTooLarge)",
        ])
        #expect(Fixtures.failedRules(Fixtures.push(fits, type: nil), [.apple]).contains("apple.payload-size"), "a plain topic: 4096")
        #expect(Fixtures.failedRules(Fixtures.push(fits, type: nil, topic: nil), [.apple]).contains("apple.payload-size"))
    }

    /// A push sent without `apns-push-type` whose `aps` has `content-available` and nothing
    /// to show is a background push (what Apple's older documentation calls a push that
    /// "contains only the content-available key", for which priority 10 "is an error"; the
    /// mock infers `background` for it too), so it needs priority 5 as one sent with the header does.
    @Test func anUntypedPushWithOnlyContentAvailableNeedsPriorityFive() {
        func fails(_ payload: String, type: String? = nil, topic: String = "com.example.app", priority: Int?) -> Bool {
            Fixtures.failedRules(Fixtures.push(payload, type: type, topic: topic, priority: priority), [.apple])
                .contains("apple.background-priority")
        }
        #expect(fails(Self.background, priority: nil), "absent means 10")
        #expect(fails(Self.background, priority: 10))
        #expect(!fails(Self.background, priority: 5))
        let messages = Fixtures.findings(Fixtures.push(Self.background, type: nil, priority: nil), [.apple])
            .filter { $0.rule == "apple.background-priority" }.map(\.message)
        #expect(messages == [
            "without apns-push-type, a push whose aps has content-available and no alert, sound or badge is a background push; it needs apns-priority 5; absent means 10",
        ])
        #expect(!fails(#"{"aps":{"alert":"x","content-available":1}}"#, priority: 10), "something to show: an alert push")
        #expect(!fails(Self.background, type: "alert", priority: 10), "the header, when sent, is the type")
        #expect(!fails(Self.background, topic: "com.example.app.voip", priority: 10), "the topic makes it a VoIP push")
    }

    /// Without `apns-push-type`, the shape and Live Activity rules judge the type APNs goes
    /// by, as the size and background-priority rules do: no finding contradicts another.
    @Test func anUntypedPushIsShapedByTheTypeAPNsGoesBy() {
        func failed(_ payload: String, topic: String, priority: Int? = nil) -> Set<String> {
            Set(Fixtures.failedRules(Fixtures.push(payload, type: nil, topic: topic, priority: priority), [.apple]))
        }
        // A VoIP push needs nothing to show; an alert would.
        #expect(!failed(#"{"aps":{},"call":"x"}"#, topic: "com.example.app.voip").contains("apple.aps-shape"))
        #expect(failed(#"{"aps":{},"call":"x"}"#, topic: "com.example.app").contains("apple.aps-shape"))
        // A content-available-only push is a background push: it is not told to show something.
        let background = Fixtures.findings(Fixtures.push(Self.background, type: nil, priority: 5), [.apple])
        #expect(!background.contains { $0.rule == "apple.aps-shape" }, "\(background.map(\.message))")
        // A Live Activity topic makes a Live Activity push: its fields and its priority are checked.
        let activity = #"{"aps":{"event":"update","timestamp":1,"content-state":{},"relevance-score":75}}"#
        let liveActivityTopic = "com.example.app.push-type.liveactivity"
        #expect(!failed(activity, topic: liveActivityTopic).contains("apple.aps-types"), "any relevance score for Live Activities")
        #expect(failed(activity, topic: liveActivityTopic, priority: 1).contains("apple.liveactivity-priority"))
        #expect(failed(#"{"aps":{"event":"update"}}"#, topic: liveActivityTopic).contains("apple.liveactivity"))
    }

    /// Findings that name a push type give it the article it is said with: "an alert push",
    /// "an mdm push", "a voip push", for every type APNs knows.
    @Test func findingsNameAPushTypeWithTheRightArticle() {
        let phrases = [
            "alert": "an alert", "background": "a background", "voip": "a voip", "complication": "a complication",
            "fileprovider": "a fileprovider", "liveactivity": "a liveactivity", "location": "a location",
            "pushtotalk": "a pushtotalk", "widgets": "a widgets", "controls": "a controls", "mdm": "an mdm",
        ]
        let tooLarge = #"{"aps":{"alert":"x"},"d":"\#(String(repeating: "a", count: 5200))"}"#
        for (type, phrase) in phrases {
            let messages = Fixtures.findings(Fixtures.push(tooLarge, type: type), [.apple])
                .filter { $0.rule == "apple.payload-size" }.map(\.message)
            #expect(messages.count == 1 && messages[0].contains("bytes; \(phrase) push may have"), "\(type): \(messages)")
        }
        let untyped = Fixtures.findings(Fixtures.push(tooLarge, type: nil), [.apple]).filter { $0.rule == "apple.payload-size" }
        #expect(untyped.map(\.message) == [
            "the payload is 5228 bytes; an alert push (inferred: no apns-push-type) may have 4096 (PayloadTooLarge)",
        ])
        let suffixed = Fixtures.findings(Fixtures.push(Self.alert, topic: "com.example.app.voip"), [.apple])
            .filter { $0.rule == "apple.topic-suffix" }.map(\.message)
        #expect(suffixed == ["an alert push needs the bundle ID without a push-type suffix"])
        let withoutAPS = Fixtures.findings(Fixtures.push(#"{"d":1}"#), [.apple]).filter { $0.rule == "apple.aps-shape" }.map(\.message)
        #expect(withoutAPS == ["an alert push needs an aps dictionary"])
        let backgroundWithoutAPS = Fixtures.findings(Fixtures.push(#"{"d":1}"#, type: "background", priority: 5), [.apple])
            .filter { $0.rule == "apple.aps-shape" }.map(\.message)
        #expect(backgroundWithoutAPS == ["a background push needs an aps dictionary"])
    }

    @Test func aPayloadThatIsNotJSONFailsTheShapeRule() {
        let findings = Fixtures.findings(Fixtures.push("{not json"), [.apple])
        #expect(findings.contains { $0.rule == "apple.aps-shape" && $0.message.contains("not JSON") })
    }

    @Test func expirationZeroMeansOnceAndPasses() {
        #expect(!Fixtures.failedRules(Fixtures.push(Self.alert, expiration: 0), [.apple]).contains("apple.expiration"))
    }
}
