import Foundation
import PushTestSupport
import Testing

/// `hermes-device onboarding`, the built command, on a fixed clock.
@Suite(.timeLimit(.minutes(1))) struct HermesOnboardingCommandTests {
    private static func hubFile(_ rows: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("hub-\(UUID().uuidString).json")
        try Data(#"{"plugins":[\#(rows)]}"#.utf8).write(to: url)
        return url.path
    }

    @Test func aPluginThatIsNotEnabledShowsTheSheetAndLaterSnoozesOnFibonacciDates() async throws {
        let hub = try Self.hubFile(#"{"name":"hermes-push","runtime_status":"disabled"}"#)
        defer { try? FileManager.default.removeItem(atPath: hub) }
        let run = try await CommandRunner.run("hermes-device", [
            "onboarding", "--hub-file", hub, "--clock", "2026-12-05T09:00:00Z", "--later", "4"])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output == """
            launch 2026-12-05T09:00:00Z  hub file \(hub)
              readiness      not ready (the hub answered 200, hermes-push missing or not enabled)
              app            shows the install sheet
              sheet          Get notified when Hermes needs you
                             Push notifications need the hermes-push plugin on your agent. Hermes can install it for you.
                             [Ask agent to install] [Later]
            later 1  tapped 2026-12-05T09:00:00Z  snoozed 1 day, until 2026-12-06T09:00:00Z
              launch 2026-12-06T08:59:59Z  stays quiet (snoozed)
              launch 2026-12-06T09:00:00Z  shows the install sheet
            later 2  tapped 2026-12-06T09:00:00Z  snoozed 2 days, until 2026-12-08T09:00:00Z
              launch 2026-12-08T08:59:59Z  stays quiet (snoozed)
              launch 2026-12-08T09:00:00Z  shows the install sheet
            later 3  tapped 2026-12-08T09:00:00Z  snoozed 3 days, until 2026-12-11T09:00:00Z
              launch 2026-12-11T08:59:59Z  stays quiet (snoozed)
              launch 2026-12-11T09:00:00Z  shows the install sheet
            later 4  tapped 2026-12-11T09:00:00Z  snoozed 5 days, until 2026-12-16T09:00:00Z
              launch 2026-12-16T08:59:59Z  stays quiet (snoozed)
              launch 2026-12-16T09:00:00Z  shows the install sheet

            """)
        #expect(run.error.isEmpty)
    }

    @Test func anEnabledPluginPromptsAndShowsNoSheet() async throws {
        let hub = try Self.hubFile(#"{"name":"other","runtime_status":"enabled"},{"name":"hermes-push","runtime_status":"enabled"}"#)
        defer { try? FileManager.default.removeItem(atPath: hub) }
        let run = try await CommandRunner.run("hermes-device", ["onboarding", "--hub-file", hub, "--clock", "2026-12-05T09:00:00Z"])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output == """
            launch 2026-12-05T09:00:00Z  hub file \(hub)
              readiness      ready (the hub answered 200, hermes-push enabled)
              app            asks for notification permission, then registers
              OS             permission prompt (allowed), then registerForRemoteNotifications

            """)
    }

    @Test func anUnreachableAgentMeansUnknownAndTheAppStaysQuiet() async throws {
        let run = try await CommandRunner.run("hermes-device", ["onboarding", "--agent", "http://127.0.0.1:9", "--later", "2"])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output.contains("  readiness      unknown (the hub could not be read: "))
        #expect(run.output.contains("  app            stays quiet (readiness unknown: never nags)\n"))
        #expect(!run.output.contains("later 1"))
    }

    @Test(arguments: [
        (["onboarding"], "Error: onboarding reads the plugin hub: give --hub-file FILE or --agent URL"),
        (["onboarding", "--hub-file", "/nonexistent/hub.json"], "Error: cannot read --hub-file /nonexistent/hub.json"),
        (["onboarding", "--hub-file", "h", "--agent", "http://127.0.0.1:9"], "Error: give --hub-file or --agent, not both"),
        (["onboarding", "--agent", "ftp://x"], "Error: --agent must be an http(s) URL"),
        (["onboarding", "--agent", "http://127.0.0.1:9", "--clock", "tomorrow"], "Error: --clock expects an RFC 3339 time"),
        (["onboarding", "--agent", "http://127.0.0.1:9", "--later", "-1"], "Error: --later"),
    ])
    func usageErrorsExitTwo(arguments: [String], message: String) async throws {
        let run = try await CommandRunner.run("hermes-device", arguments)
        #expect(run.status == 2)
        #expect(run.error.hasPrefix(message), "\(run.error)")
        #expect(run.output.isEmpty)
    }

    /// A report that cannot be written (standard output on a full disk) fails the run with 1
    /// and a message, without a crash.
    @Test func aReportThatCannotBeWrittenExitsOne() async throws {
        let hub = try Self.hubFile(#"{"name":"hermes-push","runtime_status":"enabled"}"#)
        defer { try? FileManager.default.removeItem(atPath: hub) }
        let run = try await SpawnedProcess.runDetached(
            CommandRunner.executable("hermes-device").path, ["onboarding", "--hub-file", hub], full: .output)
        #expect(run.status == 1)
        #expect(run.stderr == "Error: cannot write the report to standard output: No space left on device\n", "\(run.stderr)")
    }

    @Test func helpNamesTheOnboardingOptions() async throws {
        let run = try await CommandRunner.run("hermes-device", ["onboarding", "--help"])
        #expect(run.status == 0)
        #expect(run.output.hasPrefix("OVERVIEW: The Hermes app's onboarding"))
        #expect(run.output.contains("--hub-file <FILE>") && run.output.contains("--clock <TIME>"))
        let top = try await CommandRunner.run("hermes-device", ["--help"])
        #expect(top.output.contains("hermes-device onboarding"))
    }
}
