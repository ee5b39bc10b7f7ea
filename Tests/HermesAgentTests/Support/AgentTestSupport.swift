import Foundation
import Synchronization
import HermesContract
import HermesAgent

/// A fresh store file path in a folder of its own.
func temporaryStorePath() -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hermes-agent-tests-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder.appendingPathComponent("devices.json").path
}

let tokenA = String(repeating: "ab", count: 32)
let tokenB = String(repeating: "cd", count: 32)

func device(_ token: String, _ environment: HermesAPNsEnvironment = .sandbox) -> HermesRegisteredDevice {
    HermesRegisteredDevice(deviceToken: token, environment: environment, appVersion: "1.0",
                           registeredAt: Date(timeIntervalSince1970: 1_796_000_000))
}

/// Records backoff waits instead of sleeping, so retry tests run at once.
final class SleepRecorder: Sendable {
    private let waits = Mutex<[Duration]>([])
    var recorded: [Duration] { waits.withLock { $0 } }
    var sleep: @Sendable (Duration) async -> Void { { duration in self.waits.withLock { $0.append(duration) } } }
}
