import APNsCapture
import APNsCore
import Foundation
@testable import GatewayConformance
import HermesContract
import StrictJSON
import Testing

/// Check 1's judgement of one captured push, fed records as the mock's control API writes them.
@Suite struct ConformanceContractCheckTests {
    static func record(payload: String, headers: [(String, String)]? = nil, time: String = "2026-11-30T12:00:00.000000Z") throws -> CapturedPush {
        let defaults = [("apns-push-type", "alert"), ("apns-priority", "10"), ("apns-topic", "com.example.app"),
                        ("apns-id", "0f3c9a7e-51d2-4b0e-8000-00000000002a"), ("apns-expiration", "1796043000"),
                        ("apns-collapse-id", "approval:sess-1")]
        let token = try #require(DeviceToken(String(repeating: "ab", count: 32)))
        let seconds = try #require(ISO8601DateFormatter().date(from: String(time.prefix(19)) + "Z"))
        let record = CaptureRecord(
            sequence: 1, receivedAtMicroseconds: CaptureRecord.microseconds(since1970: seconds), environment: .sandbox,
            connectionID: 1, method: "POST", path: "/3/device/\(token.hex)",
            headers: CaptureHeaders((headers ?? defaults).map { (name: $0.0, value: $0.1) }), deviceToken: token,
            payload: Array(payload.utf8),
            outcome: .accepted(apnsID: "0f3c9a7e-51d2-4b0e-8000-00000000002a", uniqueID: nil))
        // As the control API lists it: the record's line inside {"count":1,"pushes":[…]}.
        let answer = Array(#"{"count":1,"pushes":["#.utf8) + record.encodedLine().dropLast() + Array("]}".utf8)
        let pushes = try CapturedPush.list(from: answer)
        try #require(pushes.count == 1)
        return pushes[0]
    }

    static let good = String(decoding: HermesNotification(type: .approval, sessionID: "sess-1").payload(), as: UTF8.self)

    @Test func theContractsOwnPushHasNoProblems() throws {
        let push = try Self.record(payload: Self.good)
        #expect(ContractSection3.problems(push, type: .approval, session: "sess-1", topic: "com.example.app") == [])
        #expect(HermesProfileCheck.problems(push) == [])
    }

    @Test func contentExtraKeysAndAMissingBadgeAreFound() throws {
        let leaky = Self.good.replacingOccurrences(of: "Approval needed", with: "rm -rf / ? mail bob@example.com")
        let extra = Self.good.replacingOccurrences(of: #""type":"approval"}"#, with: #""type":"approval","command":"deploy"}"#)
        let unbadged = Self.good.replacingOccurrences(of: #","badge":1"#, with: "")
        let leakyProblems = ContractSection3.problems(try Self.record(payload: leaky), type: .approval, session: "sess-1", topic: nil)
        #expect(leakyProblems.contains("aps.alert has the wrong value"), "\(leakyProblems)")
        #expect(!HermesProfileCheck.problems(try Self.record(payload: leaky)).isEmpty, "push-inspect's hermes profile flags it too")
        #expect(ContractSection3.problems(try Self.record(payload: extra), type: .approval, session: "sess-1", topic: nil)
            == ["command is not allowed"])
        #expect(HermesProfileCheck.problems(try Self.record(payload: extra)).contains { $0.contains("hermes") })
        #expect(ContractSection3.problems(try Self.record(payload: unbadged), type: .approval, session: "sess-1", topic: nil)
            == ["aps.badge must be a non-negative integer for approval"])
    }

    @Test func wrongHeadersAreFound() throws {
        let push = try Self.record(payload: Self.good, headers: [("apns-push-type", "background"), ("apns-priority", "5"),
                                                                 ("apns-topic", "com.other"), ("apns-collapse-id", "x")])
        let problems = ContractSection3.problems(push, type: .approval, session: "sess-1", topic: "com.example.app")
        #expect(problems.contains("apns-push-type is background, expected alert"))
        #expect(problems.contains("apns-priority is 5, expected 10"))
        #expect(problems.contains("apns-topic is com.other, expected com.example.app"))
        #expect(problems.contains("apns-id is missing or not a lowercase UUID"))
        #expect(problems.contains("apns-expiration is missing or not UNIX seconds"))
        #expect(problems.contains { $0.hasPrefix("apns-collapse-id is x") })
    }
}
