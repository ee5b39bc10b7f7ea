import Foundation
import HermesApp
import Synchronization

/// An agent API that answers the hub from a script and records every call.
final class FakeAgentAPI: HermesAgentAPI {
    private let hub: Mutex<HermesHubAnswer>
    private let calls = Mutex<[String]>([])
    private let registered = Mutex<[HermesDeviceRegistration]>([])
    private let failure = Mutex<HermesAgentAPIError?>(nil)

    init(hub: HermesHubAnswer) {
        self.hub = Mutex(hub)
    }

    static func hubBody(_ rows: String) -> HermesHubAnswer {
        .response(status: 200, body: Data(#"{"plugins":[\#(rows)]}"#.utf8))
    }

    static let ready = hubBody(#"{"name":"hermes-push","version":"1.0","runtime_status":"enabled"}"#)
    static let notReady = hubBody(#"{"name":"other","runtime_status":"enabled"}"#)

    func setHub(_ answer: HermesHubAnswer) { hub.withLock { $0 = answer } }
    func setFailure(_ error: HermesAgentAPIError?) { failure.withLock { $0 = error } }
    var log: [String] { calls.withLock { $0 } }
    var registrations: [HermesDeviceRegistration] { registered.withLock { $0 } }

    func fetchPluginHub() async -> HermesHubAnswer {
        calls.withLock { $0.append("hub") }
        return hub.withLock { $0 }
    }

    func registerDevice(_ registration: HermesDeviceRegistration) async throws(HermesAgentAPIError) {
        calls.withLock { $0.append("register \(registration.deviceToken)") }
        if let error = failure.withLock({ $0 }) { throw error }
        registered.withLock { $0.append(registration) }
    }

    func unregisterDevice(deviceToken: String) async throws(HermesAgentAPIError) {
        calls.withLock { $0.append("unregister \(deviceToken)") }
        if let error = failure.withLock({ $0 }) { throw error }
    }

    func sendTestNotification() async throws(HermesAgentAPIError) {
        calls.withLock { $0.append("test") }
    }
}

/// The OS permission prompt, scripted: records whether it was shown.
final class FakePermission: HermesNotificationPermission {
    private let state: Mutex<HermesNotificationAuthorization>
    private let userAllows: Bool
    private let events = Mutex<[String]>([])

    init(status: HermesNotificationAuthorization = .notDetermined, userAllows: Bool = true) {
        self.state = Mutex(status)
        self.userAllows = userAllows
    }

    var log: [String] { events.withLock { $0 } }
    var promptCount: Int { log.filter { $0 == "prompt" }.count }

    func authorizationStatus() async -> HermesNotificationAuthorization { state.withLock { $0 } }

    func requestAuthorization() async -> Bool {
        events.withLock { $0.append("prompt") }
        state.withLock { $0 = userAllows ? .authorized : .denied }
        return userAllows
    }

    func registerForRemoteNotifications() async {
        events.withLock { $0.append("registerForRemoteNotifications") }
    }
}

/// A fresh folder under the temporary directory.
func temporaryFolder() -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("hermes-app-tests-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
