import APNsCapture
import APNsCore
import Foundation
@testable import HermesApp
import Testing

/// The app's Foundation-only reader of the control API's answers reads what APNsCapture's
/// encoder writes (version 2), and the version-1 lines the mock wrote before, into the
/// same payload bytes.
@Suite struct HermesCapturedPushTests {
    static let bodies: [[UInt8]] = [
        Array(#"{"aps":{"alert":{"title":"Approval needed","body":"a \"quoted\" \u00e9 \/ word"}},"z":1.50,"a":[1e3]}"#.utf8),
        Array("{\n  \"aps\" : {\"alert\": \"spaced\"}\n}\n".utf8),
        Array("not json, \"quoted\"".utf8),
        [0xFF, 0x00, 0xC3, 0x28, 0x41],
        [],
    ]

    static func answer(_ lines: [[UInt8]]) -> Data {
        var body = Array(#"{"count":\#(lines.count),"pushes":["#.utf8)
        for (index, line) in lines.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body += line.last == UInt8(ascii: "\n") ? Array(line.dropLast()) : line
        }
        body += Array("],\"satisfied\":true}".utf8)
        return Data(body)
    }

    @Test func version2LinesFromTheEncoderGiveBackEachBodyExactly() throws {
        let token = try #require(DeviceToken(String(repeating: "ab", count: 32)))
        let lines = Self.bodies.enumerated().map { index, body in
            CaptureRecord(
                sequence: UInt64(index + 1), receivedAtMicroseconds: 1_795_958_793_123_456, environment: .sandbox,
                connectionID: 1, method: "POST", path: "/3/device/\(token.hex)",
                headers: ["apns-topic": "com.example.app", "apns-push-type": "alert"], deviceToken: token,
                topic: "com.example.app", pushType: .alert, priority: .immediately, collapseID: "approval:s",
                payload: body, outcome: .accepted(apnsID: "8a2f1e3c-0000-4000-8000-00000000000\(index)", uniqueID: nil)
            ).encodedLine()
        }
        let page = try HermesCapturedPush.page(from: Self.answer(lines))
        #expect(page.records.map(\.payload) == Self.bodies)
        #expect(page.records.map(\.sequence) == [1, 2, 3, 4, 5])
        #expect(page.records.first?.pushType == "alert" && page.records.first?.priority == 10)
        #expect(page.records.first?.collapseID == "approval:s" && page.records.first?.topic == "com.example.app")
    }

    @Test func version1LinesStillRead() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("APNsCaptureTests/Fixtures/pushes-v1.jsonl")
        let lines = try String(contentsOf: fixture, encoding: .utf8).split(separator: "\n").map { Array($0.utf8) }
        let page = try HermesCapturedPush.page(from: Self.answer(lines))
        let expected = try CaptureFileReader(path: fixture.path).readAll().map(\.payload)
        #expect(page.records.map(\.payload) == expected)
        #expect(page.records.count == 6)
    }
}
