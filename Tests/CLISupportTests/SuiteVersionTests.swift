import CLISupport
import Foundation
import PushTestSupport
import Testing

/// One version for the whole suite: every command prints it, and the changelog starts there.
@Suite(.timeLimit(.minutes(1)))
struct SuiteVersionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let commands = ["apns-mock", "push-inspect", "push-send", "push-gateway", "gateway-conformance", "push-agent", "hermes-device"]

    @Test(arguments: commands)
    func everyCommandPrintsTheSuitesVersion(command: String) async throws {
        let executable = Self.root.appendingPathComponent(".build/debug/\(command)").path
        let result = try await SpawnedProcess.runDetached(executable, ["--version"], timeout: 20)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == SuiteVersion.current + "\n")
    }

    @Test func theChangelogStartsAtTheSuitesVersion() throws {
        let changelog = try String(contentsOf: Self.root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let firstRelease = changelog.split(separator: "\n").first { $0.hasPrefix("## ") }
        #expect(firstRelease?.hasPrefix("## \(SuiteVersion.current) ") == true, "\(firstRelease ?? "no release heading")")
    }
}
