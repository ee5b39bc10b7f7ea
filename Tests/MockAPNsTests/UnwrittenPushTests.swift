import APNsCore
import Foundation
import HTTPTransport
import MockAPNs
import PushTestSupport
import StrictJSON
import Synchronization
import Testing

/// A push whose capture line cannot be written is answered 500 `InternalServerError`, and
/// nothing the mock keeps or tells says otherwise: not the observers (the simulator
/// forwarder among them), the delivery model, the capture's ring, the control API or the
/// metrics. The capture file is `/dev/full`, where every write fails with ENOSPC.
@Suite(.timeLimit(.minutes(2)))
struct UnwrittenPushTests {
    /// Every final answer, as an observer that waits for it hears them.
    final class HeardOutcomes: PushObserver {
        let outcomes = Mutex<[PushOutcome]>([])
        var waitsForFinalAnswer: Bool { true }

        func pushAnswered(_ request: PushRequest, details: PushDetails, outcome: PushOutcome, faults: [String]) {
            outcomes.withLock { $0.append(outcome) }
        }
    }

    static let offlineDevice = String(repeating: "cd", count: 32)

    static func id(_ n: Int) -> String { String(format: "00000000-0000-4000-8000-%012d", n) }

    /// A mock on free ports with delivery on, capturing to `capturePath`, told about pushes
    /// alongside `observers`.
    static func start(capturePath: String, observers: [any PushObserver]) throws -> MockAPNsServer {
        var configuration = try MockConfiguration.makeDefault(certsDirectory: Acceptance.certs)
        configuration.server.productionPort = 0
        configuration.server.sandboxPort = 0
        configuration.server.controlPort = 0
        configuration.server.channelSandboxPort = 0
        configuration.server.channelProductionPort = 0
        configuration.server.captureFilePath = capturePath
        configuration.delivery.enabled = true
        return try MockAPNsServer(configuration: configuration, observers: observers)
    }

    @Test func aPushWhoseLineCannotBeWrittenIsNeitherForwardedNorDeliveredAndEveryViewSays500() async throws {
        let xcrun = try SimulatorForwarderTests.FakeXcrun()
        defer { xcrun.remove() }
        let forwarder = try SimulatorForwarder(
            settings: SimulatorForwardingSettings(device: "booted"), xcrunPath: xcrun.folder.appendingPathComponent("xcrun").path)
        let heard = HeardOutcomes()
        let mock = try Self.start(capturePath: "/dev/full", observers: [forwarder, heard])
        defer { mock.stop() }
        let offline = try #require(DeviceToken(Self.offlineDevice))
        mock.delivery.setConnectivity(.offline, for: offline)

        // One push the model would deliver at once, one it would store.
        let client = try Acceptance.client(for: mock.sandboxURL, trust: mock.trustRootsPath)
        let token = try Acceptance.providerToken()
        var responses: [HTTPClientResponse] = []
        for (n, device) in [(1, Acceptance.deviceToken), (2, Self.offlineDevice)] {
            responses.append(try await client.send(Acceptance.push(token: token, device: device, extra: [("apns-id", Self.id(n))])))
        }
        await client.close()
        #expect(responses.map(\.status) == [500, 500])
        #expect(responses.map { String(decoding: $0.body, as: UTF8.self) } == Array(repeating: #"{"reason":"InternalServerError"}"#, count: 2))

        // Observers that wait for the final answer hear it before it is sent: the 500, never
        // the 200 decided before.
        #expect(heard.outcomes.withLock { $0.map(\.status) } == [500, 500])
        // Stopping counts whatever was queued as dropped and a command still running as failed.
        forwarder.stop()
        #expect(forwarder.counts == SimulatorForwardingCounts(), "\(forwarder.counts)")
        #expect(xcrun.lines().isEmpty, "\(xcrun.lines())")

        let online = try #require(DeviceToken(Acceptance.deviceToken))
        for n in 1...2 {
            let record = try #require(mock.delivery.record(apnsID: Self.id(n)))
            #expect(record.events.map(\.state) == [.rejected] && record.events.map(\.why) == [.internalServerError], "\(record)")
        }
        #expect(mock.delivery.notificationCentre(for: online).notifications.isEmpty)
        #expect(mock.delivery.storedPushCount == 0)
        mock.delivery.setConnectivity(.online, for: offline)
        #expect(mock.delivery.notificationCentre(for: offline).notifications.isEmpty, "nothing was stored to deliver")

        let captured = mock.capture.records()
        #expect(captured.map(\.outcome.apnsID) == [Self.id(1), Self.id(2)])
        #expect(captured.map(\.outcome.status) == [500, 500] && captured.allSatisfy { $0.outcome.reason == .internalServerError })
        #expect(mock.capture.count(matching: CaptureFilter(outcome: .accepted)) == 0)
        #expect(mock.capture.outcomeCounts().accepted == 0)

        let control = try Acceptance.client(for: mock.controlURL, trust: nil)
        func get(_ path: String) async throws -> (Int, String) {
            let response = try await control.send(HTTPClientRequest(method: "GET", path: path, headers: [:], body: []))
            return (response.status, String(decoding: response.body, as: UTF8.self))
        }
        let (_, listed) = try await get("/pushes?apns_id=\(Self.id(1))")
        #expect(listed.contains(#""status":500"#) && listed.contains(#""reason":"InternalServerError""#), "\(listed)")
        let (_, accepted) = try await get("/pushes?outcome=accepted")
        #expect(accepted.hasPrefix(#"{"count":0,"#), "\(accepted)")
        let (_, delivery) = try await get("/delivery?apns_id=\(Self.id(2))")
        #expect(delivery.contains(#""state":"rejected""#) && delivery.contains(#""why":"internal_server_error""#)
                && !delivery.contains(#""stored""#), "\(delivery)")
        let (_, metrics) = try await get("/metrics")
        let pushLines = metrics.split(separator: "\n").filter { $0.hasPrefix("apns_mock_pushes_total{") && $0.contains("sandbox") }
        #expect(pushLines.contains { $0.contains(#"outcome="accepted""#) && $0.hasSuffix(" 0") }, "\(pushLines)")
        #expect(pushLines.contains { $0.contains(#"reason="InternalServerError""#) && $0.hasSuffix(" 2") }, "\(pushLines)")
        await control.close()
    }

    /// With a file that takes the lines, observers and the model hear the 200, before the
    /// client does.
    @Test func aPushWhoseLineIsWrittenIsToldAsAcceptedBeforeItsAnswer() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("written-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let heard = HeardOutcomes()
        let mock = try Self.start(capturePath: path, observers: [heard])
        defer { mock.stop() }
        let client = try Acceptance.client(for: mock.sandboxURL, trust: mock.trustRootsPath)
        let response = try await client.send(Acceptance.push(token: try Acceptance.providerToken(), extra: [("apns-id", Self.id(3))]))
        await client.close()

        #expect(response.status == 200)
        #expect(heard.outcomes.withLock { $0.map(\.status) } == [200])
        #expect(mock.delivery.record(apnsID: Self.id(3))?.state == .delivered)
        #expect(mock.capture.records().map(\.outcome.status) == [200])
    }
}
