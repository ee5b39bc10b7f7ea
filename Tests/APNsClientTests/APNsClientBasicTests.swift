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

    /// A background push sent without a priority goes at 5, which Apple requires (the mock
    /// answers 400 `BadPriority` at 10, the default of an omitted header); other types omit it.
    @Test func aPushWithoutAPriorityTakesItsTypesPriority() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs)
        defer { mock.stop() }
        let client = try APNsClient(configuration: try ClientFixtures.configuration(for: mock))
        let silent: [UInt8] = Array(#"{"aps":{"content-available":1}}"#.utf8)
        let background = APNsNotification(deviceToken: ClientFixtures.deviceToken, pushType: .background, topic: ClientFixtures.topic,
                                          payload: silent)
        let backgroundAnswer = try await client.send(background, environment: .sandbox)
        let alertAnswer = try await client.send(ClientFixtures.notification(), environment: .sandbox)
        await client.shutdown()

        #expect(backgroundAnswer.status == 200)
        #expect(mock.capture.records(matching: CaptureFilter(apnsID: backgroundAnswer.apnsID)).first?.priority == .consideringDevicePower)
        #expect(alertAnswer.status == 200)
        let alert = try #require(mock.capture.records(matching: CaptureFilter(apnsID: alertAnswer.apnsID)).first)
        #expect(alert.headers["apns-priority"] == nil, "omitted: APNs uses 10")
    }
}
