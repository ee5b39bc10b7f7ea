import HTTPTransport
import PushTestSupport
import Testing

/// `push-inspect delivery --from` against a control API whose record has a state this
/// version does not know (a newer mock's): exit 2, with the field, the value and the states
/// it knows, instead of printing a state it cannot vouch for.
@Suite(.timeLimit(.minutes(3)))
struct PushInspectDeliveryUnknownValueTests {
    @Test func anUnknownStateExitsTwoNamingIt() async throws {
        let record = #"{"apns_id":"a","device_token":"abab","topic":"com.example.app","push_type":"alert","priority":10,"#
            + #""accepted_at":"2026-12-05T10:00:00.000000Z","state":"vanished","#
            + #""events":[{"state":"vanished","at":"2026-12-05T10:00:00.000000Z"}]}"#
        let server = try RecordingHTTPServer { _, _ in
            HTTPResponse(status: 200, headers: ["content-type": "application/json"], body: Array(#"{"count":1,"records":[\#(record)]}"#.utf8))
        }
        defer { server.stop() }
        let result = try await PushInspectProcess.run(["delivery", "--from", server.baseURL, "--apns-id", "a"])
        #expect(result.status == 2, "\(result.stdout)")
        #expect(result.stderr.contains(#"record 1 has state "vanished", which is none of delivered, stored, discarded, replaced_on_screen, rejected"#),
                "\(result.stderr)")
    }
}
