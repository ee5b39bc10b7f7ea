import APNsClient
import APNsCore
import Foundation
import MockAPNs
import PushTestSupport
import Testing

/// The channel management API and broadcasts against the mock over HTTP/2 with TLS: a
/// channel's whole life, and each error answer as the typed rejection with its request id.
@Suite(.timeLimit(.minutes(3)))
struct APNsClientChannelMockTests {
    static let bundleID = ClientFixtures.topic
    static let update = Array(#"{"aps":{"event":"update","timestamp":1800000000,"content-state":{"score":2}}}"#.utf8)
    /// An expiration in the future, for channels that store the most recent message.
    static var later: APNsExpiration { .at(Date() + 3600) }

    /// A client whose APNs and channel management destinations are the mock's listeners.
    static func client(_ mock: MockAPNsServer) throws -> APNsClient {
        var configuration = try ClientFixtures.configuration(for: mock)
        configuration.channelManagementSandbox = try APNsDestination(url: mock.channelSandboxURL)
        configuration.channelManagementProduction = try APNsDestination(url: mock.channelProductionURL)
        configuration.retryPolicy.maximumAttempts = 1
        return try APNsClient(configuration: configuration)
    }

    /// The rejection `body` ends in, or nil when it succeeds.
    static func rejection<T>(_ body: () async throws(APNsClientError) -> T) async -> APNsRejection? {
        do {
            _ = try await body()
            return nil
        } catch {
            return error.rejection
        }
    }

    @Test func aChannelLivesThroughCreateReadListBroadcastAndDelete() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs)
        defer { mock.stop() }
        let client = try Self.client(mock)
        let created = try await client.createChannel(bundleID: Self.bundleID, messageStoragePolicy: .mostRecentMessageStored,
                                                     environment: .sandbox)
        #expect(ChannelIDSyntax.isWellFormed(created.id))
        let read = try await client.channel(created.id, bundleID: Self.bundleID, environment: .sandbox)
        #expect(read == created && read.pushType == "LiveActivity")
        #expect(try await client.channelIDs(bundleID: Self.bundleID, environment: .sandbox) == [created.id])
        #expect(try await client.channelIDs(bundleID: Self.bundleID, environment: .production).isEmpty, "channels belong to one environment")

        let requestID = "0f3c9a7e-51d2-4b0e-8000-0000000000e1"
        let sent = try await client.broadcast(
            APNsBroadcast(bundleID: Self.bundleID, channelID: created.id, expiration: Self.later, requestID: requestID, payload: Self.update),
            environment: .sandbox)
        #expect(sent == APNsBroadcastResponse(requestID: requestID, status: 200, attempts: 1))
        let record = try #require(mock.capture.records().last)
        #expect(record.channelID == created.id && record.outcome.status == 200 && record.payload == Self.update)

        try await client.deleteChannel(created.id, bundleID: Self.bundleID, environment: .sandbox)
        #expect(try await client.channelIDs(bundleID: Self.bundleID, environment: .sandbox).isEmpty)
        let afterDelete = await Self.rejection { () async throws(APNsClientError) in
            try await client.broadcast(APNsBroadcast(bundleID: Self.bundleID, channelID: created.id, expiration: Self.later,
                                                     requestID: requestID, payload: Self.update), environment: .sandbox)
        }
        #expect(afterDelete?.status == 400 && afterDelete?.reason == .channelNotRegistered && afterDelete?.requestID == requestID)
        #expect(afterDelete?.description.hasPrefix("400 ChannelNotRegistered (apns-request-id \(requestID)") == true)
        let deleteAgain = await Self.rejection { () async throws(APNsClientError) in
            try await client.deleteChannel(created.id, bundleID: Self.bundleID, environment: .sandbox)
        }
        #expect(deleteAgain?.status == 404 && deleteAgain?.reason == .badPath)
        #expect(deleteAgain?.requestID.map(APNsIDGenerator.isCanonicalUUID) == true)
        await client.shutdown()
    }

    @Test func errorAnswersAreTypedRejections() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs)
        defer { mock.stop() }
        let client = try Self.client(mock)
        let stored = try await client.createChannel(bundleID: Self.bundleID, messageStoragePolicy: .mostRecentMessageStored,
                                                    environment: .sandbox)
        let unstored = try await client.createChannel(bundleID: Self.bundleID, environment: .sandbox)
        func broadcast(_ channel: String, expiration: APNsExpiration?, priority: APNsPriority = .immediately,
                       payload: [UInt8] = Self.update, environment: APNsEnvironment = .sandbox) async -> APNsRejection? {
            await Self.rejection { () async throws(APNsClientError) in
                try await client.broadcast(APNsBroadcast(bundleID: Self.bundleID, channelID: channel, priority: priority,
                                                         expiration: expiration, payload: payload), environment: environment)
            }
        }
        #expect(await broadcast(unstored.id, expiration: .immediately) == nil)
        #expect(await broadcast(unstored.id, expiration: Self.later)?.reason == .badExpirationDate, "no storage takes only 0")
        #expect(await broadcast(stored.id, expiration: nil)?.reason == .badExpirationDate, "the mock asks for apns-expiration")
        #expect(await broadcast("bmV2ZXItbWFkZQ==", expiration: .immediately)?.reason == .badChannelId)
        #expect(await broadcast(stored.id, expiration: Self.later, environment: .production)?.reason == .badChannelId,
                "a sandbox channel does not exist on production")
        #expect(await broadcast(stored.id, expiration: Self.later, priority: .prioritizingPowerSavings)?.reason == .badPriority)
        let oversized = Array(#"{"aps":{"event":"update","timestamp":1,"content-state":{"d":"\#(String(repeating: "x", count: 5100))"}}}"#.utf8)
        let tooLarge = await broadcast(stored.id, expiration: Self.later, payload: oversized)
        #expect(tooLarge?.status == 413 && tooLarge?.reason == .payloadTooLarge)

        let unknownApp = await Self.rejection { () async throws(APNsClientError) in
            try await client.createChannel(bundleID: "com.example.unregistered", environment: .sandbox)
        }
        #expect(unknownApp?.status == 403 && unknownApp?.reason == .topicMismatch)
        let notBase64 = await Self.rejection { () async throws(APNsClientError) in
            try await client.channel("not-base64", bundleID: Self.bundleID, environment: .sandbox)
        }
        #expect(notBase64?.status == 400 && notBase64?.reason == .badChannelId)
        await client.shutdown()
    }

    /// push-send end to end: create a channel, broadcast to it, list and delete it.
    @Test func pushSendManagesChannelsAndBroadcastsAgainstTheMock() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs)
        defer { mock.stop() }
        let common = ["--sandbox", "--ca", mock.trustRootsPath ?? "", "--auth-key", PushSendCommandTests.authKey, "--bundle-id", Self.bundleID]
        let channels = ["--url", mock.channelSandboxURL] + common
        let created = try await PushSendCommandTests.run(["channel", "create"] + channels)
        #expect(created.status == 0, "\(created.stderr)")
        let id = try #require(created.stdout.split(separator: "\n").first?.split(separator: " ").last.map(String.init))
        #expect(created.stdout == "apns-channel-id: \(id)\nmessage-storage-policy: 0\n")

        let sent = try await PushSendCommandTests.run(["--url", mock.sandboxURL, "--channel", id, "--expiration", "0",
                                                       "--payload", String(decoding: Self.update, as: UTF8.self)] + common)
        #expect(sent.status == 0 && sent.stdout.hasPrefix("status: 200\napns-request-id: "), "\(sent.stdout)\(sent.stderr)")
        let refused = try await PushSendCommandTests.run(["--url", mock.sandboxURL, "--channel", id, "--expiration", "4102444800",
                                                          "--payload", String(decoding: Self.update, as: UTF8.self)] + common)
        #expect(refused.status == 1 && refused.stdout.hasPrefix("status: 400\nreason: BadExpirationDate\napns-request-id: "))

        let listed = try await PushSendCommandTests.run(["channel", "list"] + channels)
        #expect(listed.stdout == "\(id)\n")
        let deleted = try await PushSendCommandTests.run(["channel", "delete"] + channels + [id])
        #expect(deleted.status == 0 && deleted.stdout == "deleted: \(id)\n")
        let again = try await PushSendCommandTests.run(["channel", "delete"] + channels + [id])
        #expect(again.status == 1 && again.stdout.hasPrefix("status: 404\nreason: BadPath\napns-request-id: "))
    }
}
