import APNsCore
import Foundation
import HTTPTransport
@testable import MockAPNs
import PushTestSupport
import Testing

/// Every rejection carries one sentence of why: in the capture, and, when asked for, in a
/// header of the answer, while APNs' body stays exactly APNs'. A fault rule's answer says it
/// was injected.
@Suite(.timeLimit(.minutes(3)))
struct RejectionExplanationTests {
    static let faultDevice = String(repeating: "fa", count: 32)

    static func start(explanationHeader: Bool) throws -> MockAPNsServer {
        try MockAPNsServer.startForTesting(certsDirectory: Acceptance.certs) { configuration in
            configuration.server.explanationHeader = explanationHeader
            if let token = DeviceToken(faultDevice) {
                configuration.faults = [FaultRule(id: "outage", match: FaultMatch(deviceToken: token),
                                                  action: .status(503, reason: .serviceUnavailable))]
            }
        }
    }

    @Test func rejectionsSayWhyInTheCaptureAndTheOptInHeader() async throws {
        let mock = try Self.start(explanationHeader: true)
        defer { mock.stop() }
        let client = try Acceptance.client(for: mock.sandboxURL, trust: mock.trustRootsPath)
        let token = try Acceptance.providerToken()
        let wrongTopic = try await client.send(Acceptance.push(token: token, topic: "com.example.wrong"))
        let injected = try await client.send(Acceptance.push(token: token, device: Self.faultDevice))
        let accepted = try await client.send(Acceptance.push(token: token))
        await client.close()
        // A fresh connection: an expired token on it is judged before anything is bound.
        let expiredClient = try Acceptance.client(for: mock.sandboxURL, trust: mock.trustRootsPath)
        let expired = try await expiredClient.send(Acceptance.push(token: try Acceptance.providerToken(issuedAt: Date() - 3_724)))
        await expiredClient.close()

        let served = "topic com.example.wrong is not served; the mock serves com.example.app and its push-type topics"
        #expect(wrongTopic.status == 400)
        #expect(wrongTopic.body == Array(#"{"reason":"TopicDisallowed"}"#.utf8), "APNs' body, exactly")
        #expect(wrongTopic.headers["x-apns-mock-explanation"] == served)
        #expect(expired.status == 403)
        #expect(expired.headers["x-apns-mock-explanation"]?.hasPrefix("token iat is 3,72") == true, "\(expired.headers)")
        #expect(injected.status == 503)
        #expect(accepted.status == 200 && accepted.headers["x-apns-mock-explanation"] == nil)

        func record(_ response: HTTPClientResponse) throws -> CaptureRecord {
            let id = try #require(response.headers["apns-id"])
            return try #require(mock.capture.records(matching: CaptureFilter(apnsID: id)).first)
        }
        #expect(try record(wrongTopic).outcome.explanation == served)
        #expect(try record(wrongTopic).outcome.isInjected == false)
        #expect(try record(expired).outcome.explanation?.contains("s old; APNs accepts up to 3,600 s") == true)
        let fault = try record(injected).outcome
        #expect(fault.isInjected)
        #expect(fault.explanation == "fault rule outage answered 503 ServiceUnavailable in place of the mock's own answer, 200")
        #expect(try record(accepted).outcome.explanation == nil)
    }

    @Test func theHeaderIsOffByDefault() async throws {
        let mock = try Self.start(explanationHeader: false)
        defer { mock.stop() }
        let client = try Acceptance.client(for: mock.sandboxURL, trust: mock.trustRootsPath)
        let answer = try await client.send(Acceptance.push(token: try Acceptance.providerToken(), topic: "com.example.wrong"))
        await client.close()
        #expect(answer.status == 400)
        #expect(answer.headers["x-apns-mock-explanation"] == nil, "APNs sends no such header")
        let id = try #require(answer.headers["apns-id"])
        #expect(mock.capture.records(matching: CaptureFilter(apnsID: id)).first?.outcome.explanation?.hasPrefix("topic ") == true)
    }

    /// Text the sender chose cannot break the header or hide in it.
    @Test func theHeaderEscapesWhatIsNotPrintableASCII() {
        #expect(APNsEndpoint.headerValue("topic a\r\nx: y \u{202E}é\\") == #"topic a\u{d}\u{a}x: y \u{202e}\u{e9}\u{5c}"#)
    }
}
