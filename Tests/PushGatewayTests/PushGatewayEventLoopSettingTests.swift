import Foundation
import PushTestSupport
import Testing

/// `APNS_MOCK_EVENT_LOOP` naming no backend stops `push-gateway` with the same usage error
/// (exit 2) as `apns-mock`, before it reads its key or opens its APNs client.
@Suite(.timeLimit(.minutes(2)))
struct PushGatewayEventLoopSettingTests {
    @Test func anUnknownEventLoopBackendIsAUsageError() async throws {
        let certs = GatewayFixture.certs
        let result = try await SpawnedProcess.runDetached(
            PushGatewayCommandTests.executable.path,
            ["--port", "0", "--topic", GatewayFixture.topic, "--auth-key", "ABC123DEFG:TEAM000001:\(certs)/AuthKey_ABC123DEFG.p8",
             "--apns-production", "https://127.0.0.1:9", "--apns-sandbox", "https://127.0.0.1:9", "--apns-ca", "\(certs)/ca.pem"],
            environment: PushGatewayCommandTests.environment.merging(["APNS_MOCK_EVENT_LOOP": "select"]) { $1 }, timeout: 30)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: APNS_MOCK_EVENT_LOOP='select' names no event-loop backend here: use '"),
                "\(result.stderr)")
        #expect(result.stdout.isEmpty, "no banner: \(result.stdout)")
    }
}
