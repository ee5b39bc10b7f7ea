import APNsCore
import Foundation
import PushTestSupport
import StrictJSON
import Testing

@testable import MockAPNs

/// The Live Activity lints (`aps.liveactivity-*`): each rule on a push the mock accepts over
/// HTTP/2, as the capture records it, and the broadcast-only rule through the payload rules
/// a broadcast is judged by.
struct LiveActivityLintTests {
    static let topic = MockConfiguration.defaultBundleID + APNsPushType.liveactivity.topicSuffix
    static let channel = "dHN0LXNyY2gtY2hubA=="
    static let update = #""event":"update","timestamp":1800000000,"content-state":{"score":1}"#
    static let start = #""event":"start","timestamp":1800000000,"content-state":{},"attributes-type":"Match","attributes":{},"alert":{"title":"t"}"#

    /// Each `aps` (members without braces) and the lints (code and path) the mock must attach.
    static let cases: [(aps: String, lints: [String])] = [
        (update, []),
        (start, []),
        (start + #","input-push-token":1"#, []),
        (start + #","input-push-channel":"\#(channel)""#, []),
        (#""content-state":{}"#, ["aps.liveactivity-missing-field aps.event", "aps.liveactivity-missing-field aps.timestamp"]),
        (#""event":"end","timestamp":1800000000"#, ["aps.liveactivity-missing-field aps.content-state"]),
        (#""event":"start","timestamp":1800000000,"content-state":{}"#,
         ["aps.liveactivity-missing-field aps.attributes-type", "aps.liveactivity-missing-field aps.attributes",
          "aps.liveactivity-missing-field aps.alert"]),
        (update + #","stale-date":1800000000000"#, ["aps.liveactivity-date-unit aps.stale-date"]),
        (#""event":"end","timestamp":1800000000000,"content-state":{},"dismissal-date":1800000000"#,
         ["aps.liveactivity-date-unit aps.timestamp"]),
        (update + #","input-push-token":1"#, ["aps.liveactivity-input-push aps.input-push-token"]),
        (start + #","input-push-token":1,"input-push-channel":"\#(channel)""#, ["aps.liveactivity-input-push aps.input-push-channel"]),
        (start + #","input-push-channel":"not a channel!""#, ["aps.liveactivity-input-push aps.input-push-channel"]),
    ]

    @Test func eachRuleIsALintOnAnAcceptedPushOverHTTP2() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Acceptance.certs)
        defer { mock.stop() }
        let client = try Acceptance.client(for: mock.sandboxURL, trust: mock.trustRootsPath)
        let token = try Acceptance.providerToken()
        for (index, test) in Self.cases.enumerated() {
            let apnsID = String(format: "0f3c9a7e-51d2-4b0e-8000-%012d", index)
            let response = try await client.send(Acceptance.push(
                token: token, topic: Self.topic, body: #"{"aps":{\#(test.aps)}}"#, pushType: "liveactivity",
                extra: [("apns-id", apnsID), ("apns-priority", "5")]))
            #expect(response.status == 200, "\(test.aps)")
            let record = try #require(mock.capture.records(matching: CaptureFilter(apnsID: apnsID)).first)
            #expect(record.lintWarnings.map { "\($0.code) \($0.path ?? "")" } == test.lints, "\(test.aps)")
        }
        await client.close()
    }

    /// The payload rules a broadcast is judged by: a broadcast's `start` is a lint, a device
    /// push's is not; everything else is the same.
    @Test func aBroadcastThatStartsAnActivityIsALint() throws {
        func lints(_ aps: String, isBroadcast: Bool) throws -> [String] {
            let body = Array(#"{"aps":{\#(aps)}}"#.utf8)
            let outline = try JSONParser.outline(body, maximumDepth: 32, member: APNsPayloadKey.aps)
            var warnings: [PushLintWarning] = []
            PayloadRules.lint(outline, pushType: .liveactivity, isBroadcast: isBroadcast, into: &warnings) {
                try? JSONParser.parse(body, maximumDepth: 32)
            }
            return warnings.map { "\($0.code) \($0.path ?? "")" }
        }
        #expect(try lints(Self.start, isBroadcast: true) == ["aps.liveactivity-broadcast-start aps.event"])
        #expect(try lints(Self.start, isBroadcast: false).isEmpty)
        #expect(try lints(Self.update, isBroadcast: true).isEmpty)
        #expect(try lints(#""event":"update","content-state":{}"#, isBroadcast: true) == ["aps.liveactivity-missing-field aps.timestamp"])
    }
}
