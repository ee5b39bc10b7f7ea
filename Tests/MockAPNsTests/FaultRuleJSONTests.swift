import APNsCore
import HTTPTransport
import MockAPNs
import StrictJSON
import Testing

@Suite struct FaultRuleJSONTests {
    func parse(_ text: String) throws -> JSONValue { try JSONParser.parse(Array(text.utf8)) }

    /// Decodes `text` and expects an error at `path` whose message contains `message`.
    func expectError(_ text: String, path: String, _ message: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let json = try parse(text)
        do {
            _ = try FaultRule.decodeList(json)
            Issue.record("expected an error at \(path)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.path == path, sourceLocation: sourceLocation)
            #expect(error.description.contains(message), "\(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func decodesTheIssueExample() throws {
        let rule = try FaultRule(json: parse(#"""
            {"id":"flaky","match":{"topic":"com.example.app"},"probability":0.5,"count":3,
             "action":{"type":"status","status":500,"reason":"InternalServerError"}}
            """#))
        #expect(rule == FaultRule(
            id: "flaky", match: FaultMatch(topic: "com.example.app"), probability: 0.5, count: 3,
            action: .status(500, reason: .internalServerError)))
    }

    @Test func everyActionTypeRoundTrips() throws {
        let token = try #require(DeviceToken(String(repeating: "0f", count: 32)))
        let rules = [
            FaultRule(id: "status", match: FaultMatch(deviceToken: token, topic: "t", pushType: .voip), probability: 0.25,
                      count: 2, action: .status(410, reason: .unregistered), note: "gone"),
            FaultRule(id: "custom", action: .status(599, reason: .unknown("Weird"))),
            FaultRule(id: "delay", action: .delay(.milliseconds(1500))),
            FaultRule(id: "reset", action: .resetStream(.refusedStream)),
            FaultRule(id: "reset-odd", action: .resetStream(HTTP2ErrorCode(rawValue: 0x99))),
            FaultRule(id: "close", action: .closeConnection),
            FaultRule(id: "goaway", action: .goAway(errorCode: .noError, reason: .shutdown)),
            FaultRule(id: "goaway-bare", action: .goAway(errorCode: .enhanceYourCalm, reason: nil)),
            FaultRule(id: "sliding", action: .rateLimit(FaultRateLimit(limit: 5, window: .seconds(60)))),
            FaultRule(id: "fixed", action: .rateLimit(FaultRateLimit(limit: 1, window: .milliseconds(1500), kind: .fixed))),
            FaultRule(id: "down", action: .unavailable(.shutdown)),
        ]
        let encoded = FaultRule.encodeList(rules)
        // Through text, as the control API sends it.
        let reparsed = try parse(encoded.description)
        #expect(try FaultRule.decodeList(reparsed) == rules)
    }

    @Test func actionJSONFormsAreAsDocumented() throws {
        let rule = FaultRule(id: "g", action: .goAway(errorCode: .noError, reason: .shutdown))
        #expect(rule.jsonValue.description == #"{"action":{"errorCode":"NO_ERROR","reason":"Shutdown","type":"goAway"},"id":"g"}"#)
        let limit = FaultRule(id: "r", action: .rateLimit(FaultRateLimit(limit: 2, window: .seconds(30), kind: .fixed)))
        #expect(limit.jsonValue.description == #"{"action":{"limit":2,"type":"rateLimit","window":"fixed","windowSeconds":30},"id":"r"}"#)
    }

    @Test func defaultsFillOptionalFields() throws {
        let rules = try FaultRule.decodeList(parse(#"""
            [{"action":{"type":"status","reason":"BadDeviceToken"}},
             {"action":{"type":"resetStream"}},
             {"action":{"type":"goAway","errorCode":11}},
             {"action":{"type":"rateLimit","limit":3,"windowSeconds":0.5}},
             {"action":{"type":"unavailable"}}]
            """#))
        #expect(rules.map(\.id) == ["fault-1", "fault-2", "fault-3", "fault-4", "fault-5"])
        #expect(rules[0].action == .status(400, reason: .badDeviceToken))
        #expect(rules[0].match == .any && rules[0].probability == nil && rules[0].count == nil)
        #expect(rules[1].action == .resetStream(FaultAction.defaultResetErrorCode))
        #expect(rules[2].action == .goAway(errorCode: .enhanceYourCalm, reason: nil))
        #expect(rules[3].action == .rateLimit(FaultRateLimit(limit: 3, window: .milliseconds(500), kind: .sliding)))
        #expect(rules[4].action == .unavailable(.serviceUnavailable))
    }

    /// A default id never takes one the list gives explicitly.
    @Test func defaultIDsSkipExplicitOnes() throws {
        let rules = try FaultRule.decodeList(parse(#"""
            [{"action":{"type":"resetStream"}},
             {"action":{"type":"resetStream"}},
             {"id":"fault-2","action":{"type":"resetStream"}},
             {"action":{"type":"resetStream"}}]
            """#))
        #expect(rules.map(\.id) == ["fault-1", "fault-3", "fault-2", "fault-4"])
        try expectError(#"[{"id":"a","action":{"type":"resetStream"}},{"id":"a","action":{"type":"resetStream"}}]"#,
                        path: "faults[1].id", "duplicate fault rule id")
    }

    /// A reason past 256 bytes could not go in a GOAWAY's one frame, and a description goes
    /// into every capture record the rule fires for: both are bounded where the rule is read.
    @Test func reasonsAndDescriptionsAreBounded() throws {
        let long = String(repeating: "R", count: FaultRule.maximumReasonLength + 1)
        try expectError(#"[{"action":{"type":"goAway","reason":"\#(long)"}}]"#, path: "faults[0].action.reason",
                        "expected at most 256 bytes, found 257")
        try expectError(#"[{"action":{"type":"status","status":500,"reason":"\#(long)"}}]"#, path: "faults[0].action.reason",
                        "expected at most 256 bytes")
        let note = String(repeating: "d", count: FaultRule.maximumNoteLength + 1)
        try expectError(#"[{"description":"\#(note)","action":{"type":"closeConnection"}}]"#, path: "faults[0].description",
                        "expected at most 1024 bytes, found 1025")
        let fits = String(repeating: "R", count: FaultRule.maximumReasonLength)
        #expect(try FaultRule.decodeList(parse(#"[{"action":{"type":"goAway","reason":"\#(fits)"}}]"#)).count == 1)
    }

    @Test func errorsNameTheJSONPath() throws {
        let ok = #"{"action":{"type":"closeConnection"}}"#
        try expectError("[\(ok),\(ok),{\"action\":{\"type\":\"status\",\"status\":700,\"reason\":\"X\"}}]",
                        path: "faults[2].action.status", "faults[2].action.status: expected an integer 400-599, found 700")
        try expectError(#"[{"action":{"type":"status","status":"500","reason":"X"}}]"#,
                        path: "faults[0].action.status", #"found string "500""#)
        try expectError(#"[{"action":{"type":"status","reason":"NotARealReason"}}]"#,
                        path: "faults[0].action.status", "APNs does not define")
        try expectError(#"[{"action":{"type":"explode"}}]"#, path: "faults[0].action.type", "expected one of status, delay")
        try expectError(#"[{}]"#, path: "faults[0].action", "required field is missing")
        try expectError(#"[{"probablity":0.5,"action":{"type":"closeConnection"}}]"#,
                        path: "faults[0].probablity", "unknown field; expected one of id, description, match")
        try expectError(#"[{"probability":2,"action":{"type":"closeConnection"}}]"#, path: "faults[0].probability", "expected a number 0-1")
        try expectError(#"[{"count":0,"action":{"type":"closeConnection"}}]"#, path: "faults[0].count", "at least 1")
        // A value past a bound only there against overflow names that bound, not the lower one.
        try expectError(#"[{"action":{"type":"rateLimit","limit":9223372036854775807,"windowSeconds":1}}]"#,
                        path: "faults[0].action.limit", "expected an integer of at most 2147483647, found 9223372036854775807")
        try expectError(#"[{"id":"a b","action":{"type":"closeConnection"}}]"#, path: "faults[0].id", "letters, digits")
        try expectError(#"[{"id":"x","action":{"type":"closeConnection"}},{"id":"x","action":{"type":"closeConnection"}}]"#,
                        path: "faults[1].id", "duplicate")
        try expectError(#"[{"match":{"deviceToken":"xyz"},"action":{"type":"closeConnection"}}]"#,
                        path: "faults[0].match.deviceToken", "hex digits")
        try expectError(#"[{"match":{"pushType":"Alert"},"action":{"type":"closeConnection"}}]"#,
                        path: "faults[0].match.pushType", "expected one of alert, background")
        try expectError(#"[{"action":{"type":"delay"}}]"#, path: "faults[0].action.milliseconds", "required")
        try expectError(#"[{"action":{"type":"delay","milliseconds":-1}}]"#, path: "faults[0].action.milliseconds", "0-3600000")
        try expectError(#"[{"action":{"type":"closeConnection","status":500}}]"#, path: "faults[0].action.status", "unknown field")
        try expectError(#"[{"action":{"type":"resetStream","errorCode":"OOPS"}}]"#, path: "faults[0].action.errorCode", "CANCEL")
        try expectError(#"[{"action":{"type":"rateLimit","limit":0,"windowSeconds":1}}]"#, path: "faults[0].action.limit", "at least 1")
        try expectError(#"[{"action":{"type":"rateLimit","limit":1,"windowSeconds":0}}]"#, path: "faults[0].action.windowSeconds", "number")
        try expectError(#"[{"action":{"type":"rateLimit","limit":1,"windowSeconds":1,"window":"rolling"}}]"#,
                        path: "faults[0].action.window", #""sliding" or "fixed""#)
        try expectError(#"[{"action":{"type":"unavailable","reason":"BadTopic"}}]"#, path: "faults[0].action.reason", "Shutdown")
        try expectError(#"{"action":{}}"#, path: "faults", "expected an array, found an object")
    }

    @Test func singleRuleDecodingRequiresAnID() throws {
        #expect(throws: ConfigurationError(.missingField, path: "id", "")) {
            try FaultRule(json: parse(#"{"action":{"type":"closeConnection"}}"#))
        }
    }

    @Test func statisticsEncode() {
        #expect(FaultRuleStatistics(id: "a", fired: 2, remaining: 1).jsonValue.description == #"{"fired":2,"id":"a","remaining":1}"#)
        #expect(FaultRuleStatistics(id: "b", fired: 0, remaining: nil).jsonValue.description == #"{"fired":0,"id":"b"}"#)
    }
}
