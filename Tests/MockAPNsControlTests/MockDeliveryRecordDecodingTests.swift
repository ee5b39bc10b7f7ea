import APNsCapture
import APNsCore
import HTTPTransport
import MockAPNsControl
import PushTestSupport
import Testing

/// `MockDeliveryRecord`'s typed fields: `state` (the mock's own `DeliveryState`) and
/// `pushType` (APNsCore's `APNsPushType`) decode every documented value, and a value the
/// client does not know is a `malformedAnswer` that names the field, the value and the ones
/// it may take.
@Suite(.timeLimit(.minutes(1)))
struct MockDeliveryRecordDecodingTests {
    static func record(pushType: String = "alert", state: String = "delivered", eventState: String? = nil) -> String {
        #"{"apns_id":"a","device_token":"abab","topic":"com.example.app","push_type":"\#(pushType)","priority":10,"#
            + #""accepted_at":"2026-12-05T10:00:00.000000Z","state":"\#(state)","#
            + #""events":[{"state":"\#(eventState ?? state)","at":"2026-12-05T10:00:00.000000Z"}]}"#
    }

    /// Each of `records` as the one record of an answer, decoded by the client.
    static func decode(_ records: [String]) async throws -> [Result<[MockDeliveryRecord], MockControlError>] {
        let server = try RecordingHTTPServer { _, index in
            HTTPResponse(status: 200, headers: ["content-type": "application/json"],
                         body: Array(#"{"count":1,"records":[\#(records[min(index, records.count - 1)])]}"#.utf8))
        }
        defer { server.stop() }
        let control = try MockControlClient(baseURL: server.baseURL)
        var results: [Result<[MockDeliveryRecord], MockControlError>] = []
        for _ in records {
            do {
                results.append(.success(try await control.deliveryRecords(.apnsID("a"))))
            } catch {
                results.append(.failure(error))
            }
        }
        await control.close()
        return results
    }

    @Test func everyStateAndPushTypeDecodes() async throws {
        let states = DeliveryState.allCases, types = APNsPushType.allCases
        let results = try await Self.decode(states.map { Self.record(state: $0.rawValue) } + types.map { Self.record(pushType: $0.rawValue) })
        let decoded = try results.map { try #require(try $0.get().first) }
        #expect(decoded.prefix(states.count).map(\.state) == states)
        #expect(decoded.suffix(types.count).map(\.pushType) == types)
    }

    @Test func anUnknownStateOrPushTypeIsAMalformedAnswerNamingIt() async throws {
        let results = try await Self.decode([
            Self.record(state: "vanished"), Self.record(pushType: "banner"), Self.record(state: "stored", eventState: "lost"),
        ])
        let details = results.map { result -> String in
            guard case .failure(let error) = result, error.kind == .malformedAnswer else { return "decoded: \(result)" }
            return error.detail
        }
        #expect(details[0] == #"record 1 has state "vanished", which is none of delivered, stored, discarded, replaced_on_screen, rejected"#)
        #expect(details[1].hasPrefix(#"record 1 has push_type "banner", which is none of alert, background, voip,"#), "\(details[1])")
        #expect(details[2].hasPrefix(#"record 1 has events[0].state "lost", which is none of delivered"#), "\(details[2])")
    }
}
