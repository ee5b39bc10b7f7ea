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
        #expect(rule.jsonValue.description == #"{"action":{"error_code":"NO_ERROR","reason":"Shutdown","type":"go_away"},"id":"g"}"#)
        let limit = FaultRule(id: "r", action: .rateLimit(FaultRateLimit(limit: 2, window: .seconds(30), kind: .fixed)))
        #expect(limit.jsonValue.description == #"{"action":{"limit":2,"type":"rate_limit","window":"fixed","window_seconds":30},"id":"r"}"#)
    }

    @Test func defaultsFillOptionalFields() throws {
        let rules = try FaultRule.decodeList(parse(#"""
            [{"action":{"type":"status","reason":"BadDeviceToken"}},
             {"action":{"type":"reset_stream"}},
             {"action":{"type":"go_away","error_code":11}},
             {"action":{"type":"rate_limit","limit":3,"window_seconds":0.5}},
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
            [{"action":{"type":"reset_stream"}},
             {"action":{"type":"reset_stream"}},
             {"id":"fault-2","action":{"type":"reset_stream"}},
             {"action":{"type":"reset_stream"}}]
            """#))
        #expect(rules.map(\.id) == ["fault-1", "fault-3", "fault-2", "fault-4"])
        try expectError(#"[{"id":"a","action":{"type":"reset_stream"}},{"id":"a","action":{"type":"reset_stream"}}]"#,
                        path: "faults[1].id", "duplicate fault rule id")
    }

    /// A reason past 256 bytes could not go in a GOAWAY's one frame, and a description goes
    /// into every capture record the rule fires for: both are bounded where the rule is read.
    @Test func reasonsAndDescriptionsAreBounded() throws {
        let long = String(repeating: "R", count: FaultRule.maximumReasonLength + 1)
        try expectError(#"[{"action":{"type":"go_away","reason":"\#(long)"}}]"#, path: "faults[0].action.reason",
                        "expected at most 256 bytes, found 257")
        try expectError(#"[{"action":{"type":"status","status":500,"reason":"\#(long)"}}]"#, path: "faults[0].action.reason",
                        "expected at most 256 bytes")
        let note = String(repeating: "d", count: FaultRule.maximumNoteLength + 1)
        try expectError(#"[{"description":"\#(note)","action":{"type":"close_connection"}}]"#, path: "faults[0].description",
                        "expected at most 1024 bytes, found 1025")
        let fits = String(repeating: "R", count: FaultRule.maximumReasonLength)
        #expect(try FaultRule.decodeList(parse(#"[{"action":{"type":"go_away","reason":"\#(fits)"}}]"#)).count == 1)
    }

    @Test func errorsNameTheJSONPath() throws {
        let ok = #"{"action":{"type":"close_connection"}}"#
        try expectError("[\(ok),\(ok),{\"action\":{\"type\":\"status\",\"status\":700,\"reason\":\"X\"}}]",
                        path: "faults[2].action.status", "faults[2].action.status: expected an integer 400-599, found 700")
        try expectError(#"[{"action":{"type":"status","status":"500","reason":"X"}}]"#,
                        path: "faults[0].action.status", #"found string "500""#)
        try expectError(#"[{"action":{"type":"status","reason":"NotARealReason"}}]"#,
                        path: "faults[0].action.status", "APNs does not define")
        try expectError(#"[{"action":{"type":"explode"}}]"#, path: "faults[0].action.type", "expected one of status, delay")
        try expectError(#"[{}]"#, path: "faults[0].action", "required field is missing")
        try expectError(#"[{"probablity":0.5,"action":{"type":"close_connection"}}]"#,
                        path: "faults[0].probablity", "unknown field; expected one of id, description, match")
        try expectError(#"[{"probability":2,"action":{"type":"close_connection"}}]"#, path: "faults[0].probability", "expected a number 0-1")
        try expectError(#"[{"count":0,"action":{"type":"close_connection"}}]"#, path: "faults[0].count", "at least 1")
        // A value past a bound only there against overflow names that bound, not the lower one.
        try expectError(#"[{"action":{"type":"rate_limit","limit":9223372036854775807,"window_seconds":1}}]"#,
                        path: "faults[0].action.limit", "expected an integer of at most 2147483647, found 9223372036854775807")
        try expectError(#"[{"id":"a b","action":{"type":"close_connection"}}]"#, path: "faults[0].id", "letters, digits")
        try expectError(#"[{"id":"x","action":{"type":"close_connection"}},{"id":"x","action":{"type":"close_connection"}}]"#,
                        path: "faults[1].id", "duplicate")
        try expectError(#"[{"match":{"device_token":"xyz"},"action":{"type":"close_connection"}}]"#,
                        path: "faults[0].match.device_token", "hex digits")
        try expectError(#"[{"match":{"push_type":"Alert"},"action":{"type":"close_connection"}}]"#,
                        path: "faults[0].match.push_type", "expected one of alert, background")
        try expectError(#"[{"action":{"type":"delay"}}]"#, path: "faults[0].action.milliseconds", "required")
        try expectError(#"[{"action":{"type":"delay","milliseconds":-1}}]"#, path: "faults[0].action.milliseconds", "0-3600000")
        try expectError(#"[{"action":{"type":"close_connection","status":500}}]"#, path: "faults[0].action.status", "unknown field")
        try expectError(#"[{"action":{"type":"reset_stream","error_code":"OOPS"}}]"#, path: "faults[0].action.error_code", "CANCEL")
        try expectError(#"[{"action":{"type":"rate_limit","limit":0,"window_seconds":1}}]"#, path: "faults[0].action.limit", "at least 1")
        try expectError(#"[{"action":{"type":"rate_limit","limit":1,"window_seconds":0}}]"#, path: "faults[0].action.window_seconds", "number")
        try expectError(#"[{"action":{"type":"rate_limit","limit":1,"window_seconds":1,"window":"rolling"}}]"#,
                        path: "faults[0].action.window", #""sliding" or "fixed""#)
        try expectError(#"[{"action":{"type":"unavailable","reason":"BadTopic"}}]"#, path: "faults[0].action.reason", "Shutdown")
        try expectError(#"{"action":{}}"#, path: "faults", "expected an array, found an object")
    }

    @Test func singleRuleDecodingRequiresAnID() throws {
        #expect(throws: ConfigurationError(.missingField, path: "id", "")) {
            try FaultRule(json: parse(#"{"action":{"type":"close_connection"}}"#))
        }
    }

    @Test func statisticsEncode() {
        #expect(FaultRuleStatistics(id: "a", fired: 2, remaining: 1).jsonValue.description == #"{"fired":2,"id":"a","remaining":1}"#)
        #expect(FaultRuleStatistics(id: "b", fired: 0, remaining: nil).jsonValue.description == #"{"fired":0,"id":"b"}"#)
    }
}
