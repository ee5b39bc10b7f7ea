import APNsClient
import APNsCore
import Foundation
import MockAPNs
import Testing

@Suite(.timeLimit(.minutes(2)))
struct APNsClientBasicTests {
    @Test(arguments: ClientFixtures.SendPath.allCases)
    func sendsAPushThatTheMockAcceptsAndCapturesWithEveryHeader(path: ClientFixtures.SendPath) async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs)
        defer { mock.stop() }
        let client = try APNsClient(configuration: try ClientFixtures.configuration(for: mock))
        let apnsID = "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9"
        let notification = APNsNotification(
            deviceToken: ClientFixtures.deviceToken, pushType: .alert, topic: ClientFixtures.topic,
            priority: .consideringDevicePower, expiration: APNsExpiration(unixSeconds: 2_000_000_000),
            collapseID: "group-1", apnsID: apnsID, payload: ClientFixtures.alert)
        let response = try await ClientFixtures.send(client, notification, .sandbox, via: path)
        #expect(response.status == 200)
        #expect(response.apnsID == apnsID)
        #expect(response.uniqueID.map(APNsIDGenerator.isCanonicalUUID) == true, "the sandbox sends apns-unique-id")
        #expect(response.attempts == 1)

        let production = try await ClientFixtures.send(client, ClientFixtures.notification(), .production, via: path)
        #expect(production.uniqueID == nil, "production sends no apns-unique-id")
        #expect(APNsIDGenerator.isCanonicalUUID(production.apnsID))
        await client.shutdown()

        let records = mock.capture.records(matching: CaptureFilter(apnsID: apnsID))
        let record = try #require(records.first)
        #expect(records.count == 1)
        #expect(record.environment == .sandbox)
        #expect(record.outcome.status == 200)
        #expect(record.topic == ClientFixtures.topic)
        #expect(record.pushType == .alert)
        #expect(record.priority == .consideringDevicePower)
        #expect(record.expiration == 2_000_000_000)
        #expect(record.collapseID == "group-1")
        #expect(record.keyID == ClientFixtures.keyID)
        #expect(record.teamID == ClientFixtures.teamID)
        #expect(record.payload == ClientFixtures.alert)
    }

    /// Without a priority, a background push goes at 5, which the default mock accepts (at
    /// 10, or with no header, it is `BadPriority`), and any other push at 10.
    @Test(arguments: ClientFixtures.SendPath.allCases)
    func withoutAPriorityABackgroundPushGoesAtFiveAndOthersAtTen(path: ClientFixtures.SendPath) async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs)
        defer { mock.stop() }
        let client = try APNsClient(configuration: try ClientFixtures.configuration(for: mock))
        var background = ClientFixtures.notification(payload: Array(#"{"aps":{"content-available":1}}"#.utf8))
        background.pushType = .background
        #expect(background.effectivePriority == .consideringDevicePower)
        let response = try await ClientFixtures.send(client, background, .sandbox, via: path)
        #expect(response.status == 200)
        let alert = try await ClientFixtures.send(client, ClientFixtures.notification(), .sandbox, via: path)
        #expect(alert.status == 200)
        await client.shutdown()
        let sent = mock.capture.records().map { $0.headers["apns-priority"] }
        #expect(sent == ["5", "10"])
    }
}
