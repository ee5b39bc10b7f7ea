import APNsCapture
import APNsCore
import Foundation
import PushTestSupport
import StrictJSON
import Testing

/// push-inspect names every push it reports (seq, apns-id, masked token, topic, type,
/// environment, outcome), selects pushes by them, and fails the pushes APNs rejected.
@Suite(.timeLimit(.minutes(2)))
struct PushInspectFindYourPushTests {
    typealias P = PushInspectProcess
    static let tokenA = String(repeating: "ab", count: 32)
    static let tokenB = String(repeating: "cd", count: 32)
    static let alert = #"{"aps":{"alert":"hi"}}"#

    /// One version-2 capture line, as the mock writes it.
    static func line(
        seq: UInt64, apnsID: String, token: String = tokenA, environment: APNsEnvironment = .sandbox,
        topic: String = "com.example.app", pushType: APNsPushType = .alert, status: Int = 200, reason: APNsReason? = nil,
        method: String = "POST", seconds: Int64 = 1_796_032_800, payload: String = alert, injected: Bool = false,
        faults: [String] = [], explanation: String? = nil
    ) -> String {
        var headers: CaptureHeaders = ["apns-topic": topic, "apns-push-type": pushType.rawValue]
        if pushType == .background { headers.add(name: "apns-priority", value: "5") }
        var record = CaptureRecord(
            sequence: seq, receivedAtMicroseconds: seconds * 1_000_000, environment: environment, connectionID: 1,
            method: method, path: "/3/device/\(token)", headers: method == "POST" ? headers : [:],
            deviceToken: DeviceToken(token), topic: method == "POST" ? topic : nil, pushType: method == "POST" ? pushType : nil,
            payload: method == "POST" ? Array(payload.utf8) : [],
            outcome: PushOutcome(status: status, reason: reason, apnsID: apnsID, uniqueID: nil, timestamp: nil, connectionAction: .none),
            faults: faults)
        record.outcome.isInjected = injected
        record.outcome.explanation = explanation
        return String(decoding: record.encodedLine(), as: UTF8.self).trimmingCharacters(in: .newlines)
    }

    static func file(_ lines: [String]) throws -> String {
        try P.file(lines.joined(separator: "\n") + "\n")
    }

    static func object(_ text: String) -> [String: JSONValue]? {
        guard case .object(let members)? = try? JSONParser.parse(Array(text.utf8)) else { return nil }
        return members
    }

    /// The finding carries the mock's sentence of why, quoted and escaped: it names the
    /// sender's own values, such as the topic.
    @Test func aRejectionsFindingSaysWhyTheMockRejectedIt() async throws {
        let why = "topic com.example.wrong\u{1B}[2J is not served; the mock serves com.example.app and its push-type topics"
        let capture = try Self.file([
            Self.line(seq: 1, apnsID: "33333333-0000-4000-8000-000000000003", topic: "com.example.wrong", status: 400,
                      reason: .topicDisallowed, explanation: why),
        ])
        defer { try? FileManager.default.removeItem(atPath: capture) }
        let text = try await P.run(["check", capture])
        #expect(text.status == 1, "\(text.stdout)\(text.stderr)")
        #expect(text.stdout.contains(#"  apns.rejected $: APNs rejected the push: 400 TopicDisallowed: "topic com.example.wrong\u001b[2J is not served; "#
            + #"the mock serves com.example.app and its push-type topics""#), "\(text.stdout)")
    }

    @Test func aRejectedPushFailsUnderItsOwnRuleNamedByItsAPNsID() async throws {
        let capture = try Self.file([
            Self.line(seq: 1, apnsID: "11111111-0000-4000-8000-000000000001"),
            Self.line(seq: 2, apnsID: "22222222-0000-4000-8000-000000000002", token: Self.tokenB, status: 400, reason: .badDeviceToken),
        ])
        defer { try? FileManager.default.removeItem(atPath: capture) }
        let text = try await P.run(["check", capture])
        #expect(text.status == 1, "\(text.stdout)\(text.stderr)")
        #expect(text.stdout.contains("FAIL \(capture)#2 (alert com.example.app) apns-id=22222222-0000-4000-8000-000000000002 "
            + "token=cdcd…cdcd env=sandbox outcome=400 BadDeviceToken\n"), "\(text.stdout)")
        #expect(text.stdout.contains("  apns.rejected $: APNs rejected the push: 400 BadDeviceToken\n"), "\(text.stdout)")
        #expect(text.stdout.contains("checked 2 pushes: 1 passed, 1 failed"), "\(text.stdout)")

        let json = try await P.run(["check", "--json", capture])
        guard let root = Self.object(json.stdout), case .array(let failures)? = root["failures"],
              case .object(let failure)? = failures.first else {
            Issue.record("check --json: \(json.stdout)")
            return
        }
        #expect(failure["apns_id"] == "22222222-0000-4000-8000-000000000002" && failure["seq"] == 2)
        #expect(failure["device_token"] == "cdcd…cdcd" && failure["environment"] == "sandbox")
        #expect(failure["topic"] == "com.example.app" && failure["push_type"] == "alert")
        #expect(failure["status"] == 400 && failure["reason"] == "BadDeviceToken")
        #expect(failure["findings"] == [["rule": "apns.rejected", "path": "$", "message": "APNs rejected the push: 400 BadDeviceToken"]])

        let report = NSTemporaryDirectory() + "push-inspect-\(UUID().uuidString).xml"
        defer { try? FileManager.default.removeItem(atPath: report) }
        _ = try await P.run(["check", "--quiet", "--junit", report, capture])
        let junit = try String(contentsOfFile: report, encoding: .utf8)
        #expect(junit.contains(#"<testcase classname="22222222-0000-4000-8000-000000000002" name="apns.rejected">"#), "\(junit)")
        #expect(junit.contains(#"<testcase classname="11111111-0000-4000-8000-000000000001" name="apns.rejected"/>"#), "\(junit)")

        let allowed = try await P.run(["check", "--allow-rejected", capture])
        #expect(allowed.status == 0, "\(allowed.stdout)\(allowed.stderr)")
        #expect(!allowed.stdout.contains("apns.rejected"), "\(allowed.stdout)")
    }

    /// A 503 a fault rule produced is said to be injected, and fails nothing: it is not the
    /// sender's failure. In JSON it is listed apart, in JUnit a skipped test case.
    @Test func anInjectedAnswerIsNotTheSendersFailure() async throws {
        let capture = try Self.file([
            Self.line(seq: 1, apnsID: "33333333-0000-4000-8000-000000000003", status: 503, reason: .serviceUnavailable,
                      injected: true, faults: ["down: unavailable 503 ServiceUnavailable"]),
        ])
        defer { try? FileManager.default.removeItem(atPath: capture) }
        let text = try await P.run(["check", capture])
        #expect(text.status == 0, "\(text.stdout)\(text.stderr)")
        #expect(text.stdout.contains("INJECTED \(capture)#1 apns-id=33333333-0000-4000-8000-000000000003"), "\(text.stdout)")
        #expect(text.stdout.contains("answered 503 ServiceUnavailable by the mock's fault rules (down: unavailable 503 ServiceUnavailable): "
            + "injected, not the sender's failure"), "\(text.stdout)")
        #expect(text.stdout.contains("checked 1 push: 1 passed, 0 failed; 1 answer injected by fault rules"), "\(text.stdout)")

        let json = try await P.run(["check", "--json", capture])
        guard let root = Self.object(json.stdout), case .array(let injected)? = root["injected"],
              case .object(let entry)? = injected.first else {
            Issue.record("check --json: \(json.stdout)")
            return
        }
        #expect(root["failures"] == [] && root["failed"] == 0)
        #expect(entry["apns_id"] == "33333333-0000-4000-8000-000000000003" && entry["injected"] == true && entry["status"] == 503)

        let report = NSTemporaryDirectory() + "push-inspect-\(UUID().uuidString).xml"
        defer { try? FileManager.default.removeItem(atPath: report) }
        _ = try await P.run(["check", "--quiet", "--junit", report, capture])
        let junit = try String(contentsOfFile: report, encoding: .utf8)
        #expect(junit.contains(#"<testcase classname="33333333-0000-4000-8000-000000000003" name="apns.rejected">"#
            + "\n      <skipped message=\"answered 503 ServiceUnavailable"), "\(junit)")
    }

    /// A GET to `/3/device/…` (405) never was a push: it is reported once, as what it is,
    /// not as a push missing its push type with an empty payload.
    @Test func aRequestThatWasNoPushIsReportedOnceAsWhatItIs() async throws {
        let capture = try Self.file([
            Self.line(seq: 1, apnsID: "44444444-0000-4000-8000-000000000004", status: 405, reason: .methodNotAllowed, method: "GET"),
        ])
        defer { try? FileManager.default.removeItem(atPath: capture) }
        let result = try await P.run(["check", "--json", capture])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        guard let root = Self.object(result.stdout), case .array(let failures)? = root["failures"],
              case .object(let failure)? = failures.first else {
            Issue.record("check --json: \(result.stdout)")
            return
        }
        #expect(failure["findings"] == [[
            "rule": "apns.rejected", "path": "$",
            "message": "not a push: GET /3/device/abab…abab was answered 405 MethodNotAllowed",
        ]], "\(result.stdout)")
        let allowed = try await P.run(["check", "--allow-rejected", capture])
        #expect(allowed.status == 0, "no other rule judges a request that was no push: \(allowed.stdout)")
    }

    /// Each filter selects in a file as the control API does live.
    @Test func filtersSelectCapturedPushes() async throws {
        let capture = try Self.file([
            Self.line(seq: 1, apnsID: "AAAAAAAA-0000-4000-8000-000000000001", seconds: 1_796_032_800),
            Self.line(seq: 2, apnsID: "BBBBBBBB-0000-4000-8000-000000000002", token: Self.tokenB, environment: .production,
                      seconds: 1_796_032_900),
            Self.line(seq: 3, apnsID: "CCCCCCCC-0000-4000-8000-000000000003", topic: "com.other", pushType: .background,
                      seconds: 1_796_033_000, payload: #"{"aps":{"content-available":1}}"#),
            Self.line(seq: 4, apnsID: "DDDDDDDD-0000-4000-8000-000000000004", status: 400, reason: .badDeviceToken, seconds: 1_796_033_100),
        ])
        defer { try? FileManager.default.removeItem(atPath: capture) }
        let cases: [([String], [Int64])] = [
            (["--apns-id", "bbbbbbbb-0000-4000-8000-000000000002"], [2]),
            (["--device-token", "CDCD"], [2]),
            (["--device-token", Self.tokenA], [1, 3, 4]),
            (["--topic", "com.other"], [3]),
            (["--push-type", "background"], [3]),
            (["--env", "production"], [2]),
            (["--outcome", "accepted"], [1, 2, 3]),
            (["--outcome", "rejected"], [4]),
            (["--outcome", "BadDeviceToken"], [4]),
            (["--since", "2026-11-30T10:01:40Z"], [2, 3, 4]),
            (["--since", "1796033000"], [3, 4]),
            (["--env", "sandbox", "--outcome", "accepted"], [1, 3]),
        ]
        for (filters, expected) in cases {
            let show = try await P.run(["show", "--json"] + filters + [capture])
            guard case .array(let rows)? = try? JSONParser.parse(Array(show.stdout.utf8)) else {
                Issue.record("\(filters): \(show.stdout)\(show.stderr)")
                continue
            }
            let seqs = rows.compactMap { row -> Int64? in if case .integer(let seq)? = row.value(atKeys: ["seq"]) { seq } else { nil } }
            #expect(seqs == expected, "\(filters): \(show.stdout)")
        }
        let stats = try await P.run(["stats", "--json", "--outcome", "rejected", capture])
        #expect(Self.object(stats.stdout)?["pushes"] == 1, "\(stats.stdout)")
        let check = try await P.run(["check", "--apns-id", "DDDDDDDD-0000-4000-8000-000000000004", capture])
        #expect(check.status == 1 && check.stdout.contains("checked 1 push: 0 passed, 1 failed"), "\(check.stdout)")
    }

    @Test func aMalformedFilterIsAUsageError() async throws {
        let capture = try Self.file([Self.line(seq: 1, apnsID: "AAAAAAAA-0000-4000-8000-000000000001")])
        defer { try? FileManager.default.removeItem(atPath: capture) }
        let cases: [([String], String)] = [
            (["--outcome", "Nope"], "--outcome expects accepted, rejected or an APNs reason"),
            (["--env", "staging"], "--env expects production or sandbox"),
            (["--device-token", "xyz"], "--device-token expects hex digits"),
            (["--push-type", "banner"], "--push-type expects one of alert, background"),
            (["--since", "yesterday"], "--since expects UNIX seconds or an RFC 3339 time"),
        ]
        for (filters, message) in cases {
            let result = try await P.run(["check"] + filters + [capture])
            #expect(result.status == 2 && result.stderr.hasPrefix("Error: \(message)"), "\(filters): \(result.stderr)")
        }
        let payload = try P.file(Self.alert, suffix: ".json")
        defer { try? FileManager.default.removeItem(atPath: payload) }
        let onPayload = try await P.run(["check", "--apns-id", "x", payload])
        #expect(onPayload.status == 2 && onPayload.stderr.hasPrefix("Error: --apns-id selects captured pushes"), "\(onPayload.stderr)")
    }

    @Test func showNamesEachPush() async throws {
        let capture = try Self.file([
            Self.line(seq: 7, apnsID: "77777777-0000-4000-8000-000000000007", environment: .production, status: 400, reason: .badDeviceToken),
        ])
        defer { try? FileManager.default.removeItem(atPath: capture) }
        let table = try await P.run(["show", capture])
        let rows = table.stdout.split(separator: "\n").map(String.init)
        #expect(rows.first?.hasPrefix("SEQ     TIME                 APNS-ID") == true, "\(table.stdout)")
        #expect(rows.last?.hasPrefix("7       2026-11-30 10:00:00  77777777-0000-4000-8000-000000000007  abab…abab") == true, "\(table.stdout)")
        #expect(rows.last?.contains("  production  ") == true && rows.last?.hasSuffix("400 BadDeviceToken") == true, "\(table.stdout)")
        let json = try await P.run(["show", "--json", capture])
        guard case .array(let list)? = try? JSONParser.parse(Array(json.stdout.utf8)), case .object(let row)? = list.first else {
            Issue.record("show --json: \(json.stdout)")
            return
        }
        #expect(row["apns_id"] == "77777777-0000-4000-8000-000000000007" && row["environment"] == "production")
        #expect(row["seq"] == 7 && row["status"] == 400 && row["reason"] == "BadDeviceToken")
    }
}
