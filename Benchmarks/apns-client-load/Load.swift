import APNsClient
import APNsCore
import Foundation
import HermesContract
import Synchronization

/// A fixed rate of pushes, with the latency of each.
struct Load: Sendable {
    let client: APNsClient
    let topic: String
    private let notification = HermesNotification(type: .approval, sessionID: "20261130_154126_a1b2c3")

    init(client: APNsClient, topic: String) {
        self.client = client
        self.topic = topic
    }

    /// The gateway's APNs request for an approval: same headers, same payload.
    func push() -> APNsNotification {
        APNsNotification(deviceToken: String(repeating: "ab", count: 32), pushType: .alert, topic: topic, priority: .immediately,
                         expiration: APNsExpiration(unixSeconds: Int64(Date().timeIntervalSince1970) + 3600),
                         collapseID: notification.collapseID, payload: notification.payload())
    }

    /// Sends `rate` pushes a second for `seconds`; the sorted latencies in ms, and failures.
    func paced(rate: Int, seconds: Int) async -> ([Double], Int) {
        let tally = Tally()
        let interval = Duration.seconds(1) / rate
        let start = ContinuousClock.now
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<(rate * seconds) {
                try? await Task.sleep(until: start + interval * index, clock: .continuous)
                group.addTask {
                    let sent = ContinuousClock.now
                    do {
                        _ = try await client.send(push(), environment: .production)
                        let elapsed = Self.seconds(sent.duration(to: .now)) * 1000
                        tally.latencies.withLock { $0.append(elapsed) }
                    } catch {
                        tally.failures.wrappingAdd(1, ordering: .relaxed)
                    }
                }
            }
        }
        return (tally.latencies.withLock { $0 }.sorted(), tally.failures.load(ordering: .relaxed))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// Counters the senders share.
final class Tally: Sendable {
    let failures = Atomic<Int>(0)
    let latencies = Mutex<[Double]>([])
}
