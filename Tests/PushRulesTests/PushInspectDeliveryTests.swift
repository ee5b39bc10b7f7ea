import Foundation
import HermesContract
import PushTestSupport
import Testing

/// `push-inspect delivery` over a capture file with pushes and delivery events, and
/// `check` skipping the delivery events without a warning.
@Suite(.timeLimit(.minutes(2)))
struct PushInspectDeliveryTests {
    typealias P = PushInspectProcess
    static let token = String(repeating: "ab", count: 32)

    static func event(seq: Int, id: String, state: String, why: String? = nil, by: String? = nil) -> String {
        var line = #"{"v":2,"seq":\#(seq),"kind":"delivery","time":"2026-12-04T10:00:\#(String(format: "%02d", seq)).000000Z","apns_id":"\#(id)","device_token":"\#(token)","topic":"com.example.app","state":"\#(state)""#
        if let why { line += #","why":"\#(why)""# }
        if let by { line += #","by":"\#(by)""# }
        return line + "}"
    }

    static func file() throws -> String {
        try P.file([
            P.hermesLine(seq: 1, type: .approval),
            event(seq: 2, id: "a", state: "stored", why: "offline"),
            P.hermesLine(seq: 3, type: .complete),
            event(seq: 4, id: "a", state: "discarded", why: "coalesced", by: "b"),
            event(seq: 5, id: "b", state: "stored", why: "offline"),
            event(seq: 6, id: "b", state: "delivered"),
        ].joined(separator: "\n") + "\n")
    }

    @Test func printsEachPushsFateAndFiltersByID() async throws {
        let file = try Self.file()
        let all = try await P.run(["delivery", file])
        #expect(all.status == 0, "\(all.stderr)")
        let rows = all.stdout.split(separator: "\n").dropFirst()
        #expect(rows.count == 4)
        #expect(rows[rows.startIndex + 1].contains("discarded  coalesced  b"))
        let one = try await P.run(["delivery", "--apns-id", "b", "--json", file])
        #expect(one.status == 0)
        #expect(one.stdout.split(separator: "\n").count == 2 && one.stdout.contains(#""state":"delivered""#))
        #expect(try await P.run(["delivery", "--apns-id", "nope", file]).status == 1, "nothing matched")
    }

    @Test func usageErrorsExitTwoAndHelpExitsZero() async throws {
        let noFile = try await P.run(["delivery"])
        #expect(noFile.status == 2 && noFile.stderr.contains("Error: name a capture file"))
        #expect(try await P.run(["delivery", "--device-token", "xyz", try Self.file()]).status == 2)
        #expect(try await P.run(["delivery", "/nonexistent/pushes.jsonl"]).status == 2)
        let help = try await P.run(["delivery", "--help"])
        #expect(help.status == 0 && help.stdout.contains("USAGE: push-inspect delivery"))
        #expect(try await P.run(["help", "delivery"]).status == 0)
    }

    @Test func checkSkipsDeliveryEventsWithoutAWarning() async throws {
        let result = try await P.run(["check", "--profile", "hermes", try Self.file()])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("checked 2 pushes"))
        #expect(!result.stderr.contains("skipped"))
    }
}
