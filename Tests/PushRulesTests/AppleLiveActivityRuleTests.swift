import PushRules
import Testing

/// `apple.liveactivity`: each Live Activity rule, on device pushes and broadcasts, with a
/// push that passes it and one that fails it.
struct AppleLiveActivityRuleTests {
    static let topic = "com.example.app.push-type.liveactivity"
    static let channel = "dHN0LXNyY2gtY2hubA=="
    static let update = #""event":"update","timestamp":1800000000,"content-state":{"score":1}"#
    static let start = #""event":"start","timestamp":1800000000,"content-state":{},"attributes-type":"Match","attributes":{},"alert":{"title":"t"}"#

    /// The paths `apple.liveactivity` reports for `aps` (its members, without braces).
    static func paths(_ aps: String, broadcast: Bool = false) -> [String] {
        var push = Fixtures.push(#"{"aps":{\#(aps)}}"#, type: "liveactivity", topic: broadcast ? nil : topic)
        if broadcast { push.headers.channelID = channel }
        return Fixtures.findings(push, [.apple]).filter { $0.rule == "apple.liveactivity" }.map(\.path.description)
    }

    @Test func aCompleteUpdateAndStartPass() {
        #expect(Self.paths(Self.update).isEmpty)
        #expect(Self.paths(Self.start).isEmpty)
        #expect(Self.paths(Self.start + #","input-push-token":1"#).isEmpty)
        #expect(Self.paths(Self.start + #","input-push-channel":"\#(Self.channel)""#).isEmpty)
        #expect(Self.paths(Self.update, broadcast: true).isEmpty)
    }

    @Test func everyEventNeedsEventTimestampAndContentState() {
        #expect(Self.paths(#""content-state":{}"#) == ["aps.event", "aps.timestamp"])
        #expect(Self.paths(#""event":"end","timestamp":1800000000"#) == ["aps.content-state"])
        #expect(Self.paths(#""event":"update","content-state":{}"#, broadcast: true) == ["aps.timestamp"])
    }

    @Test func startNeedsAttributesTypeAttributesAndAlert() {
        #expect(Self.paths(#""event":"start","timestamp":1800000000,"content-state":{}"#)
            == ["aps.attributes-type", "aps.attributes", "aps.alert"])
    }

    @Test func datesInMillisecondsAreFound() {
        #expect(Self.paths(Self.update + #","stale-date":1800000000000"#) == ["aps.stale-date"])
        #expect(Self.paths(#""event":"end","timestamp":1800000000000,"content-state":{},"dismissal-date":1800000000123"#)
            == ["aps.timestamp", "aps.dismissal-date"])
        #expect(Self.paths(Self.update + #","stale-date":99999999999"#).isEmpty, "the last second before the threshold")
    }

    @Test func inputPushKeysBelongToAStartAndOnlyOneOfThem() {
        #expect(Self.paths(Self.update + #","input-push-token":1"#) == ["aps.input-push-token"])
        #expect(Self.paths(Self.update + #","input-push-channel":"\#(Self.channel)""#) == ["aps.input-push-channel"])
        #expect(Self.paths(Self.start + #","input-push-token":1,"input-push-channel":"\#(Self.channel)""#) == ["aps.input-push-channel"])
        #expect(Self.paths(Self.start + #","input-push-channel":"not a channel!""#) == ["aps.input-push-channel"])
    }

    @Test func aBroadcastCannotStartAnActivity() {
        #expect(Self.paths(Self.start, broadcast: true) == ["aps.event"])
        #expect(Self.paths(Self.start).isEmpty, "a device push may start one")
    }

    @Test func otherPushTypesAreNotJudged() {
        let findings = Fixtures.findings(Fixtures.push(#"{"aps":{"alert":"x","event":"nonsense"}}"#), [.apple])
        #expect(!findings.contains { $0.rule == "apple.liveactivity" })
    }

    /// A broadcast is judged as the Live Activity push it is: whatever the case of its
    /// `apns-push-type`, and without a topic to hold to a suffix.
    @Test func aBroadcastIsALiveActivityPushWithoutATopic() {
        for spelling in ["liveactivity", "LiveActivity", "Liveactivity"] {
            var push = Fixtures.push(#"{"aps":{"event":"update","content-state":{}}}"#, type: spelling, topic: "com.example.app")
            push.headers.channelID = Self.channel
            let rules = Fixtures.failedRules(push, [.apple])
            #expect(rules == ["apple.liveactivity"], "\(spelling): \(rules)")
        }
        var alert = Fixtures.push(#"{"aps":{"alert":"x"}}"#, type: "alert", topic: nil)
        alert.headers.channelID = Self.channel
        #expect(Fixtures.failedRules(alert, [.apple]).contains("apple.push-type"))
        #expect(!Fixtures.failedRules(alert, [.apple]).contains("apple.topic-suffix"))
    }
}
