import APNsClient
import JWTVerify
import MockAPNs
import Testing

/// The README's APNsClient example, kept compiling and true (against a mock on free ports).
@Suite(.timeLimit(.minutes(1)))
struct ReadmeClientExampleTests {
    @Test func theReadmeExampleSendsAPush() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs)
        defer { mock.stop() }
        let certs = ClientFixtures.certs

        var configuration = APNsClientConfiguration(
            authentication: try .token(p8Path: "\(certs)/AuthKey_ABC123DEFG.p8", keyID: "ABC123DEFG", teamID: "TEAM000001"))
        configuration.sandbox = try APNsDestination(url: mock.sandboxURL)
        configuration.trustRootsPath = "\(certs)/ca.pem"
        let client = try APNsClient(configuration: configuration)
        let response = try await client.send(
            APNsNotification(deviceToken: String(repeating: "ab", count: 32), topic: "com.example.app",
                             payload: Array(#"{"aps":{"alert":"hello"}}"#.utf8)),
            environment: .sandbox)
        await client.shutdown()

        #expect(response.status == 200)
        #expect(mock.capture.records(matching: CaptureFilter(apnsID: response.apnsID)).count == 1)
    }

    @Test func anEncodablePayloadIsSentAsJSON() async throws {
        struct Payload: Encodable {
            struct APS: Encodable { var alert: String }
            var aps: APS
            var url: String
        }
        let notification = try APNsNotification(
            deviceToken: ClientFixtures.deviceToken, topic: ClientFixtures.topic,
            payload: Payload(aps: .init(alert: "hi"), url: "https://example.com/a"))
        #expect(String(decoding: notification.payload, as: UTF8.self).contains(#""url":"https://example.com/a""#))
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs)
        defer { mock.stop() }
        let client = try APNsClient(configuration: try ClientFixtures.configuration(for: mock))
        let response = try await client.send(notification, environment: .production)
        await client.shutdown()
        let record = try #require(mock.capture.records(matching: CaptureFilter(apnsID: response.apnsID)).first)
        #expect(record.payload == notification.payload)
    }

    @Test func destinationsParseURLsAndRefuseOthers() throws {
        #expect(try APNsDestination(url: "https://127.0.0.1:2198") == APNsDestination(host: "127.0.0.1", port: 2198))
        #expect(try APNsDestination(url: "http://[::1]:8080/") == APNsDestination(host: "::1", port: 8080, usesTLS: false))
        #expect(try APNsDestination(url: "https://api.push.apple.com") == .production)
        for bad in ["ftp://x", "https://", "https://host:0", "https://host:x", "https://host/path", "https://[::1", "api.push.apple.com"] {
            #expect(throws: APNsClientError.self, "\(bad)") { try APNsDestination(url: bad) }
        }
        #expect(APNsDestination(host: "::1", port: 443).description == "https://[::1]:443")
    }

    @Test func invalidNotificationsAreRefusedBeforeAnythingIsSent() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs)
        defer { mock.stop() }
        let client = try APNsClient(configuration: try ClientFixtures.configuration(for: mock))
        let bad: [APNsNotification] = [
            ClientFixtures.notification(device: ""),
            ClientFixtures.notification(device: "ab/../x"),
            ClientFixtures.notification(apnsID: "not-a-uuid"),
            ClientFixtures.notification(topic: "com.example.app\r\nx-evil: 1"),
        ]
        for notification in bad {
            let result = await ClientFixtures.outcome(client, notification)
            guard case .failure(.invalidRequest) = result else {
                Issue.record("\(notification.deviceToken): expected invalidRequest, got \(result)")
                continue
            }
        }
        await client.shutdown()
        #expect(mock.capture.count == 0)
    }
}
