import PushTestSupport
import Testing

/// `APNS_MOCK_EVENT_LOOP` naming no backend is the person's setting gone wrong: `apns-mock`
/// says so as a usage error (exit 2) before it starts anything, as for a bad flag.
@Suite(.timeLimit(.minutes(2)))
struct ApnsMockEventLoopSettingTests {
    @Test func anUnknownEventLoopBackendIsAUsageError() async throws {
        let result = try await SpawnedProcess.runDetached(
            ApnsMockCommandTests.executable.path,
            ["--no-tls", "--port", "0", "--sandbox-port", "0", "--control-port", "0", "--channel-sandbox-port", "0", "--channel-port", "0"],
            environment: ["APNS_MOCK_EVENT_LOOP": "kqueue", "APNS_MOCK_CERTS": ApnsMockCommandTests.certs], timeout: 30)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: APNS_MOCK_EVENT_LOOP='kqueue' names no event-loop backend here: use '"),
                "\(result.stderr)")
        #expect(result.stderr.contains("Usage: apns-mock"), "\(result.stderr)")
        #expect(result.stdout.isEmpty, "no banner: \(result.stdout)")
    }

    /// Help needs no event loop: it is printed whatever the variable holds.
    @Test func helpIsPrintedWhateverTheVariableHolds() async throws {
        let help = try await SpawnedProcess.runDetached(
            ApnsMockCommandTests.executable.path, ["--help"], environment: ["APNS_MOCK_EVENT_LOOP": "kqueue"], timeout: 30)
        #expect(help.status == 0 && help.stdout.contains("USAGE:"), "\(help.stderr)")
    }
}
