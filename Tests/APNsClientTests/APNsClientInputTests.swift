@testable import APNsClient
import APNsCore
import HTTPTransport
import Testing

/// What the client makes of odd answers and odd requests, without a server.
struct APNsClientInputTests {
    static let payload: [UInt8] = Array(#"{"aps":{}}"#.utf8)

    static func response(_ body: String, status: Int = 410) -> HTTPClientResponse {
        HTTPClientResponse(status: status, body: Array(body.utf8), streamID: 1)
    }

    /// A timestamp past Int64 trapped the process (on the event loop, with the callback send).
    @Test(arguments: [#"1e19"#, #"99999999999999999999"#, #"-1e300"#])
    func aTimestampNoInt64HoldsIsDroppedNotATrap(_ timestamp: String) {
        let rejection = APNsClient.rejection(
            from: Self.response(#"{"reason":"Unregistered","timestamp":\#(timestamp)}"#), apnsID: "x")
        #expect(rejection.reason == .unregistered)
        #expect(rejection.timestampMilliseconds == nil)
    }

    @Test func aFractionalTimestampIsCutToWholeMilliseconds() {
        let rejection = APNsClient.rejection(
            from: Self.response(#"{"reason":"Unregistered","timestamp":1700000000123.7}"#), apnsID: "x")
        #expect(rejection.timestampMilliseconds == 1_700_000_000_123)
    }

    /// A value with a space at either end was sent, and the server reset the stream
    /// (PROTOCOL_ERROR) instead of the client saying what was wrong.
    @Test(arguments: [" com.example.app", "com.example.app ", "com.example\tapp"])
    func aTopicNoHeaderCanCarryIsAnInvalidRequest(_ topic: String) {
        let notification = APNsNotification(
            deviceToken: String(repeating: "ab", count: 32), pushType: .alert, topic: topic, payload: Self.payload)
        #expect(throws: APNsClientError.self) { try notification.validateForSending() }
        do {
            try notification.validateForSending()
        } catch {
            guard case let .invalidRequest(message) = error else {
                Issue.record("expected invalidRequest, got \(error)")
                return
            }
            #expect(message.hasPrefix(APNsHeaderName.topic))
        }
    }

    @Test func aCollapseIDWithInnerSpacesIsFine() throws {
        let notification = APNsNotification(
            deviceToken: String(repeating: "ab", count: 32), pushType: .alert, topic: "com.example.app",
            collapseID: "build 42 done", payload: Self.payload)
        try notification.validateForSending()
    }
}
