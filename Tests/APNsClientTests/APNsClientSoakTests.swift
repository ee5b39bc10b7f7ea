import APNsClient
import APNsCore
import Foundation
import JWTVerify
import MockAPNs
import Testing

/// 100,000 pushes while the mock drops connections at random: every push is accepted
/// exactly once, as counted by apns-id in the mock's capture.
@Suite(.timeLimit(.minutes(10)))
struct APNsClientSoakTests {
    static let total = 100_000
    static let senders = 64

    @Test func hundredThousandPushesWithRandomConnectionDropsNoneLostNoneDuplicated() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs) {
            $0.server.captureRingSize = 2 * Self.total
        }
        defer { mock.stop() }
        var configuration = try ClientFixtures.configuration(for: mock)
        configuration.maximumConnectionsPerEnvironment = 4
        configuration.retryPolicy = APNsRetryPolicy(
            maximumAttempts: 8, initialBackoff: .milliseconds(1), maximumBackoff: .milliseconds(50), multiplier: 2)
        let client = try APNsClient(configuration: configuration)
        try mock.faults.add(FaultRule(id: "drop", probability: 0.0005, action: .closeConnection))

        let perSender = Self.total / Self.senders + 1
        let results = await withTaskGroup(of: (sent: [String], failures: [String]).self) { group in
            for sender in 0..<Self.senders {
                group.addTask {
                    var sent: [String] = [], failures: [String] = []
                    for index in 0..<perSender where sender * perSender + index < Self.total {
                        do {
                            let response = try await client.send(ClientFixtures.notification(), environment: .sandbox)
                            sent.append(response.apnsID)
                        } catch {
                            failures.append("\(error)")
                        }
                    }
                    return (sent, failures)
                }
            }
            var sent: [String] = [], failures: [String] = []
            for await result in group {
                sent += result.sent
                failures += result.failures
            }
            return (sent: sent, failures: failures)
        }
        #expect(results.failures.isEmpty, "\(results.failures.count) failed: \(results.failures.prefix(3))")
        #expect(results.sent.count == Self.total)
        #expect(Set(results.sent).count == Self.total, "every push has its own apns-id")

        let records = mock.capture.records()
        #expect(mock.capture.droppedCount == 0)
        var acceptedByID: [String: Int] = [:]
        var dropped = 0
        for record in records {
            if record.outcome.status == 200 { acceptedByID[record.outcome.apnsID, default: 0] += 1 }
            if record.outcome.status == 0 { dropped += 1 }
        }
        let duplicated = acceptedByID.filter { $0.value > 1 }
        #expect(acceptedByID.count == Self.total, "none lost")
        let duplicatedCount = duplicated.count
        #expect(duplicatedCount == 0, "accepted more than once, such as \(duplicated.first?.key ?? "")")
        for (id, _) in duplicated.prefix(3) {
            for record in records where record.outcome.apnsID == id {
                print("dup \(id) seq \(record.sequence) conn \(record.connectionID) status \(record.outcome.status) faults \(record.faults)")
                let sameConnection = records.filter { $0.connectionID == record.connectionID }
                print("  conn \(record.connectionID): \(sameConnection.count) records, last seqs \(sameConnection.suffix(4).map { "\($0.sequence):\($0.outcome.status)" })")
            }
        }
        #expect(Set(results.sent) == Set(acceptedByID.keys))
        #expect(dropped > 0, "the fault fired")
        #expect(client.connectionsOpened(to: .sandbox) > dropped / 2, "drops made the pool reconnect")
        print("soak: \(Self.total) pushes, \(dropped) connection drops, \(client.connectionsOpened(to: .sandbox)) connections")
        await client.shutdown()
    }
}
