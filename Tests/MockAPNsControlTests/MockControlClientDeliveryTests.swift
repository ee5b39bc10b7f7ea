import APNsCore
import Foundation
import HTTPTransport
import MockAPNs
import MockAPNsControl
import PushTestSupport
import Testing

/// `MockControlClient.deliveryRecords(_:)` against a mock with the delivery model on, fed
/// real pushes over HTTP/2.
@Suite(.timeLimit(.minutes(3)))
struct MockControlClientDeliveryTests {
    typealias T = MockControlClientTests

    /// Sends one alert to the sandbox listener; returns its `apns-id` and `apns-unique-id`.
    static func push(_ client: HTTP2Client, to device: String, title: String) async throws -> (id: String, uniqueID: String?) {
        let headers: HTTPHeaders = ["apns-topic": "com.example.app", "apns-push-type": "alert",
                                    "authorization": "bearer \(try T.providerToken.get())"]
        let response = try await client.send(HTTPClientRequest(method: "POST", path: "/3/device/\(device)", headers: headers,
                                                               body: Array(#"{"aps":{"alert":"\#(title)"}}"#.utf8)))
        #expect(response.status == 200)
        return (try #require(response.headers["apns-id"]), response.headers["apns-unique-id"])
    }

    @Test func looksRecordsUpByApnsIDUniqueIDAndDevice() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: T.certs) {
            $0.server.tlsEnabled = false
            $0.delivery.enabled = true
        }
        defer { mock.stop() }
        let token = try #require(DeviceToken(T.deviceA))
        mock.delivery.setConnectivity(.offline, for: token)
        let control = try MockControlClient(baseURL: mock.controlURL)
        let apns = try T.apnsClient(mock, url: mock.sandboxURL)
        let first = try await Self.push(apns, to: T.deviceA, title: "approve")
        let second = try await Self.push(apns, to: T.deviceA, title: "done")
        await apns.close()

        let byID = try await control.deliveryRecords(.apnsID(first.id))
        let record = try #require(byID.first)
        #expect(byID.count == 1 && record.apnsID == first.id && record.deviceToken == token)
        #expect(record.topic == "com.example.app" && record.pushType == .alert && record.priority == 10)
        #expect(record.state == .discarded)
        #expect(record.events.map(\.state) == ["stored", "discarded"] && record.events.map(\.why) == ["offline", "coalesced"])
        #expect(record.events.last?.by == second.id && record.events.allSatisfy { $0.apnsID == first.id && $0.sequence == 0 })
        #expect(record.events[0].timeMicroseconds <= record.events[1].timeMicroseconds)

        let uniqueID = try #require(second.uniqueID, "the sandbox answers apns-unique-id")
        let byUniqueID = try await control.deliveryRecords(.uniqueID(uniqueID))
        #expect(byUniqueID.map(\.apnsID) == [second.id] && byUniqueID.first?.uniqueID == uniqueID)
        #expect(byUniqueID.first?.state == .stored)

        mock.delivery.setConnectivity(.online, for: token)
        let byDevice = try await control.deliveryRecords(.deviceToken(token))
        #expect(Set(byDevice.map(\.apnsID)) == [first.id, second.id])
        #expect(byDevice.first { $0.apnsID == second.id }?.state == .delivered)

        #expect(try await control.deliveryRecords(.apnsID("00000000-0000-0000-0000-000000000000")).isEmpty)
        await control.close()
    }

    @Test func aMockWithoutTheDeliveryModelAnswers409() async throws {
        let mock = try T.startMock()
        defer { mock.stop() }
        let control = try MockControlClient(baseURL: mock.controlURL)
        do {
            _ = try await control.deliveryRecords(.apnsID("x"))
            Issue.record("expected 409")
        } catch {
            guard case .answered(409, let message) = error.kind else {
                Issue.record("expected 409, got \(error)")
                return
            }
            #expect(message?.contains("--delivery") == true, "\(message ?? "")")
        }
        await control.close()
    }

    /// The lookup is percent-encoded into the query; a record missing a documented field, or
    /// an answer of another shape, is `malformedAnswer` naming the record.
    @Test func encodesTheLookupAndRefusesMalformedRecords() async throws {
        let answers = [#"{"count":1,"records":[{"apns_id":"a","state":"stored"}]}"#, #"{"pushes":[]}"#]
        let server = try RecordingHTTPServer { _, index in
            HTTPResponse(status: 200, headers: ["content-type": "application/json"], body: Array(answers[min(index, answers.count - 1)].utf8))
        }
        defer { server.stop() }
        let control = try MockControlClient(baseURL: server.baseURL)
        let missing = await #expect(throws: MockControlError.self) { _ = try await control.deliveryRecords(.apnsID("a b&c")) }
        #expect(missing?.kind == .malformedAnswer && missing?.detail.hasPrefix("record 1 ") == true, "\(String(describing: missing))")
        let shape = await #expect(throws: MockControlError.self) {
            _ = try await control.deliveryRecords(.deviceToken(try #require(DeviceToken(T.deviceB))))
        }
        #expect(shape?.kind == .malformedAnswer && shape?.detail.hasPrefix("not {\"records\"") == true, "\(String(describing: shape))")
        #expect(server.requests.map(\.path) == ["/delivery?apns_id=a%20b%26c", "/delivery?device_token=\(T.deviceB)"])
        await control.close()
    }
}
