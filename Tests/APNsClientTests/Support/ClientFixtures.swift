import APNsClient
import APNsCore
import Foundation
import JWTVerify
import MockAPNs
import Synchronization

/// The test certificates, keys, a mock and clients pointed at it.
enum ClientFixtures {
    static let certs = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("certs").path
    static let topic = MockConfiguration.defaultBundleID
    static let teamID = MockConfiguration.defaultTeamID
    static let keyID = "ABC123DEFG"
    static let deviceToken = String(repeating: "ab", count: 32)
    static let alert = Array(#"{"aps":{"alert":"hi"}}"#.utf8)

    static func signingKey(_ keyID: String = keyID) throws -> ES256PrivateKey {
        try ES256PrivateKey(contentsOfFile: "\(certs)/AuthKey_\(keyID).p8")
    }

    /// A token-auth configuration whose two environments are the mock's listeners.
    static func configuration(
        for mock: MockAPNsServer, keyID: String = keyID, teamID: String = teamID
    ) throws -> APNsClientConfiguration {
        var configuration = APNsClientConfiguration(
            authentication: .token(signingKey: try signingKey(keyID), keyID: keyID, teamID: teamID))
        configuration.production = try APNsDestination(url: mock.productionURL)
        configuration.sandbox = try APNsDestination(url: mock.sandboxURL)
        configuration.trustRootsPath = mock.trustRootsPath
        configuration.requestTimeout = .seconds(20)
        return configuration
    }

    static func notification(
        device: String = deviceToken, topic: String? = topic, apnsID: String? = nil, payload: [UInt8] = alert
    ) -> APNsNotification {
        APNsNotification(deviceToken: device, pushType: .alert, topic: topic, apnsID: apnsID, payload: payload)
    }

    /// Which of the client's two `send`s a test uses: they must deliver, retry and fail alike.
    enum SendPath: String, CaseIterable, Sendable {
        /// `try await client.send(_:environment:)`.
        case async
        /// `client.send(_:environment:completion:)`, no task per push.
        case callback
    }

    /// Sends one push through `path`.
    static func send(
        _ client: APNsClient, _ notification: APNsNotification, _ environment: APNsEnvironment = .sandbox,
        via path: SendPath
    ) async throws(APNsClientError) -> APNsResponse {
        try await outcome(client, notification, environment, via: path).get()
    }

    /// The outcome of one send through `path`, so tests can compare errors by value.
    static func outcome(
        _ client: APNsClient, _ notification: APNsNotification, _ environment: APNsEnvironment = .sandbox,
        via path: SendPath = .async
    ) async -> Result<APNsResponse, APNsClientError> {
        switch path {
        case .async:
            do {
                return .success(try await client.send(notification, environment: environment))
            } catch {
                return .failure(error)
            }
        case .callback:
            return await withCheckedContinuation { continuation in
                client.send(notification, environment: environment) { continuation.resume(returning: $0) }
            }
        }
    }
}

/// A wall clock tests move by hand; shared by a mock and a client to simulate hours.
final class ManualClock: Sendable {
    private let current: Mutex<Date>

    init(_ start: Date = Date()) {
        current = Mutex(start)
    }

    var now: Date { current.withLock { $0 } }

    func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    /// A closure reading this clock, for `now:` parameters.
    var reader: @Sendable () -> Date { { [self] in self.now } }
}

/// Polls `condition` until it holds or a generous bound passes; never an upper time assert.
func eventually(attempts: Int = 400, _ condition: () -> Bool) async -> Bool {
    for _ in 0..<attempts {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(25))
    }
    return condition()
}
