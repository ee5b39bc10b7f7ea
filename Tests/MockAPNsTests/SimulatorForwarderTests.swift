import Foundation
import MockAPNs
import StrictJSON
import PushTestSupport
import Testing

/// `apns-mock --forward-to-simulator`, run with a fake `xcrun` on `PATH` that records its
/// arguments and the payload file, and pushes sent over HTTP/2 by curl; and the forwarder on
/// its own, for what a real `xcrun` does when it fails.
@Suite(.timeLimit(.minutes(3)))
struct SimulatorForwarderTests {
    static let device = String(repeating: "ab", count: 32)
    static let freePorts = ["--port", "0", "--sandbox-port", "0", "--control-port", "0", "--channel-sandbox-port", "0", "--channel-port", "0"]

    /// A folder holding a fake `xcrun` (a shell script whose body follows the recording
    /// lines), its record, and a file that releases a held `xcrun`.
    struct FakeXcrun {
        let folder: URL
        var record: URL { folder.appendingPathComponent("record") }
        var release: URL { folder.appendingPathComponent("release") }
        var environment: [String: String] {
            ["PATH": "\(folder.path):\(ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")"]
        }

        /// `body` runs after the arguments and the payload file are recorded.
        init(body: String = "exit 0") throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("fake-xcrun-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let script = """
                #!/bin/sh
                {
                  printf 'ARGS %s\\n' "$*"
                  printf 'FILE '; cat "$5"; printf '\\n'
                } >> '\(folder.path)/record'
                \(body)

                """
            try Self.writeExecutable(script, to: folder.appendingPathComponent("xcrun").path)
        }

        /// Writes through a descriptor closed on exec: the other tests of the run start
        /// processes all the time, and one that inherited a descriptor open for writing
        /// would make every exec of the script fail with ETXTBSY for as long as it lives.
        struct ScriptError: Error { var description: String }

        static func writeExecutable(_ text: String, to path: String) throws {
            let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
            guard descriptor >= 0 else { throw ScriptError(description: "cannot create \(path): errno \(errno)") }
            defer { close(descriptor) }
            let bytes = Array(text.utf8)
            guard bytes.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) == bytes.count else {
                throw ScriptError(description: "cannot write \(path): errno \(errno)")
            }
        }

        /// The record's lines so far.
        func lines() -> [String] {
            ((try? String(contentsOf: record, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }

        func remove() { try? FileManager.default.removeItem(at: folder) }
    }

    static func push(_ sandbox: String, token: String, type: String, payload: String, topic: String = "com.example.app") throws -> String {
        var arguments = ["-s", "-w", " %{http_code}", "--http2-prior-knowledge", "-H", "authorization: bearer \(token)",
                         "-H", "apns-topic: \(topic)", "-H", "apns-push-type: \(type)"]
        if type == "background" { arguments += ["-H", "apns-priority: 5"] }
        arguments += ["-d", payload, "\(sandbox)/3/device/\(device)"]
        return try SpawnedProcess.run("curl", arguments, timeout: 30).stdout
    }

    static func metric(_ control: String, _ result: String) throws -> Int? {
        let text = try SpawnedProcess.run("curl", ["-s", "\(control)/metrics"], timeout: 30).stdout
        let prefix = "apns_mock_simulator_pushes_total{result=\"\(result)\"} "
        return text.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Int($0.dropFirst(prefix.count)) }
    }

    /// Polls `condition` on this thread until it holds or 20 seconds pass.
    static func waitFor(_ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if try condition() { return true }
            usleep(20_000)
        }
        return try condition()
    }

    @Test func anAcceptedAlertPushReachesSimctlWithItsPayloadAndABackgroundPushDoesNot() async throws {
        let xcrun = try FakeXcrun()
        defer { xcrun.remove() }
        let seen = try await onThread { () throws -> (answers: [String], banner: String, record: [String], forwarded: Int?, status: Int32) in
            let mock = try ApnsMockCommandTests.RunningMock(
                arguments: Self.freePorts + ["--no-tls", "--forward-to-simulator", "booted"], environment: xcrun.environment)
            guard let sandbox = mock.urls["sandbox"], let control = mock.urls["control"] else {
                return ([], mock.process.standardOutput, [], nil, mock.stop())
            }
            let token = try ApnsMockCommandTests.pyjwtToken()
            // In order: the queue is first in, first out, so once the alert is forwarded a
            // background push queued before it would have been too.
            let answers = [
                try Self.push(sandbox, token: token, type: "background", payload: #"{"aps":{"content-available":1}}"#),
                try Self.push(sandbox, token: token, type: "alert", payload: #"{"aps":{"alert":"hi"}}"#, topic: "com.example.unknown"),
                try Self.push(sandbox, token: token, type: "alert", payload: #"{"aps":{"alert":{"title":"Hello"}},"order":42}"#),
            ]
            _ = try Self.waitFor { try Self.metric(control, "forwarded") == 1 }
            return (answers, mock.process.standardOutput, xcrun.lines(), try Self.metric(control, "forwarded"), mock.stop())
        }
        #expect(seen.answers == [" 200", #"{"reason":"TopicDisallowed"} 400"#, " 200"], "\(seen.answers)")
        #expect(seen.banner.contains("simulator   booted"), "\(seen.banner)")
        #expect(seen.forwarded == 1)
        #expect(seen.record.count == 2, "one alert push, nothing else: \(seen.record)")
        let arguments = try #require(seen.record.first).split(separator: " ").map(String.init)
        #expect(arguments.dropLast() == ["ARGS", "simctl", "push", "booted", "com.example.app"], "\(arguments)")
        let file = try #require(arguments.last)
        #expect(file.hasSuffix(".json"))
        #expect(!FileManager.default.fileExists(atPath: file), "the payload file is removed once xcrun exits")
        #expect(seen.record.last == #"FILE {"aps":{"alert":{"title":"Hello"}},"order":42}"#)
        #expect(seen.status == 0)
    }

    @Test func withoutXcrunOnPathTheFlagIsAUsageError() async throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("no-xcrun-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        let environment = ["PATH": empty.path, "APNS_MOCK_CERTS": ApnsMockCommandTests.certs]
        let flag = try await SpawnedProcess.runDetached(
            ApnsMockCommandTests.executable.path, Self.freePorts + ["--forward-to-simulator", "booted"], environment: environment, timeout: 30)
        #expect(flag.status == 2)
        #expect(flag.stderr.hasPrefix("Error: --forward-to-simulator: simulator forwarding runs `xcrun simctl push`, and no xcrun is on PATH"),
                "\(flag.stderr)")
        #expect(flag.stderr.contains("xcode-select --install"), "\(flag.stderr)")
        #expect(flag.stdout.isEmpty, "no banner: the mock did not start")

        let config = empty.appendingPathComponent("mock.json")
        try #"{"simulator_forwarding": {"device": "booted"}}"#.write(to: config, atomically: true, encoding: .utf8)
        let file = try await SpawnedProcess.runDetached(
            ApnsMockCommandTests.executable.path, Self.freePorts + ["--config", config.path], environment: environment, timeout: 30)
        #expect(file.status == 2)
        #expect(file.stderr.contains("simulator_forwarding.device") && file.stderr.contains("no xcrun is on PATH"), "\(file.stderr)")
    }

    /// A simulator slower than the pushes fills the queue of one: the mock keeps answering
    /// every push at once, and `/metrics` counts the pushes it did not forward.
    @Test func aSlowSimulatorMakesDropsThatMetricsCountWhileThePushesAreAnswered() async throws {
        // Held until the test creates the release file, for at most 30 s.
        let xcrun = try FakeXcrun(body: """
            i=0
            while [ ! -e "$(dirname "$0")/release" ] && [ $i -lt 600 ]; do
              sleep 0.05; i=$((i + 1))
            done
            """)
        defer { xcrun.remove() }
        let config = xcrun.folder.appendingPathComponent("mock.json")
        try #"{"simulator_forwarding": {"device": "booted", "queue_capacity": 1}}"#.write(to: config, atomically: true, encoding: .utf8)
        let pushes = 6
        let seen = try await onThread {
            () throws -> (answers: [String], whileHeld: (Int?, Int?), after: (Int?, Int?, Int?), log: [String], status: Int32) in
            let mock = try ApnsMockCommandTests.RunningMock(
                arguments: Self.freePorts + ["--no-tls", "--config", config.path], environment: xcrun.environment)
            guard let sandbox = mock.urls["sandbox"], let control = mock.urls["control"] else { return ([], (nil, nil), (nil, nil, nil), [], mock.stop()) }
            let token = try ApnsMockCommandTests.pyjwtToken()
            var answers: [String] = []
            for index in 0..<pushes {
                answers.append(try Self.push(sandbox, token: token, type: "alert", payload: #"{"aps":{"alert":"\#(index)"}}"#))
            }
            let whileHeld = (try Self.metric(control, "forwarded"), try Self.metric(control, "dropped"))
            try Data().write(to: xcrun.release)
            _ = try Self.waitFor { (try Self.metric(control, "forwarded") ?? 0) + (try Self.metric(control, "dropped") ?? 0) == pushes }
            let after = (try Self.metric(control, "forwarded"), try Self.metric(control, "dropped"), try Self.metric(control, "failed"))
            // The log's rate-limited line comes within a second of the drops.
            _ = Self.waitFor { mock.takeLog().contains { $0.contains("simulator forwarding:") } }
            return (answers, whileHeld, after, mock.takeLog(), mock.stop())
        }
        #expect(seen.answers == Array(repeating: " 200", count: pushes), "answered while xcrun was held: \(seen.answers)")
        #expect(seen.whileHeld.0 == 0, "xcrun was held: nothing forwarded yet")
        // One push in xcrun's hands and one in the queue at most: the others were dropped.
        let droppedWhileHeld = try #require(seen.whileHeld.1)
        #expect(droppedWhileHeld >= pushes - 2, "\(seen.whileHeld)")
        #expect(seen.after.0 == pushes - droppedWhileHeld && seen.after.1 == droppedWhileHeld && seen.after.2 == 0, "\(seen.after)")
        let line = seen.log.first { $0.contains("simulator forwarding:") } ?? ""
        #expect(line.contains("dropped") && line.contains("the queue of 1 being full"), "\(seen.log)")
        #expect(seen.status == 0)
    }

    /// An `xcrun` that fails (no booted simulator) is counted, with what it said, and the
    /// CLI logs it; the forwarder keeps going.
    @Test func aFailingXcrunIsCountedWithWhatItSaidAndLogged() async throws {
        let xcrun = try FakeXcrun(body: "echo 'Invalid device: booted' >&2; exit 148")
        defer { xcrun.remove() }
        let seen = try await onThread { () throws -> (failed: Int?, log: [String], status: Int32) in
            let mock = try ApnsMockCommandTests.RunningMock(
                arguments: Self.freePorts + ["--no-tls", "--forward-to-simulator", "booted"], environment: xcrun.environment)
            guard let sandbox = mock.urls["sandbox"], let control = mock.urls["control"] else { return (nil, [], mock.stop()) }
            let token = try ApnsMockCommandTests.pyjwtToken()
            _ = try Self.push(sandbox, token: token, type: "alert", payload: #"{"aps":{"alert":"hi"}}"#)
            _ = try Self.waitFor { try Self.metric(control, "failed") == 1 }
            _ = Self.waitFor { mock.takeLog().contains { $0.contains("simulator forwarding:") } }
            return (try Self.metric(control, "failed"), mock.takeLog(), mock.stop())
        }
        #expect(seen.failed == 1)
        let line = seen.log.first { $0.contains("simulator forwarding:") } ?? ""
        #expect(line.contains("error") && line.contains("1 push(es) failed")
                && line.contains("xcrun simctl push booted com.example.app: exit status 148: Invalid device: booted"), "\(seen.log)")
        #expect(seen.status == 0)
    }

    /// A command that never ends is terminated at the timeout and counted as failed, and the
    /// next push is forwarded.
    ///
    /// The timeout leaves the quick command many seconds to start a shell and `cat` on a
    /// loaded machine: 3 s failed both commands there.
    @Test func aCommandPastItsTimeoutIsTerminatedAndCountedAsFailed() async throws {
        let xcrun = try FakeXcrun(body: #"case "$(cat "$5")" in *hang*) exec sleep 600;; esac"#)
        defer { xcrun.remove() }
        let forwarder = try SimulatorForwarder(
            settings: SimulatorForwardingSettings(device: "booted", queueCapacity: 4, commandTimeout: .seconds(20)),
            xcrunPath: xcrun.folder.appendingPathComponent("xcrun").path)
        defer { forwarder.stop() }
        forwarder.enqueue(bundleID: "com.example.app", payload: Array(#"{"aps":{"alert":"hang"}}"#.utf8))
        forwarder.enqueue(bundleID: "com.example.app", payload: Array(#"{"aps":{"alert":"next"}}"#.utf8))
        #expect(await pollUntil(timeout: .seconds(120)) { forwarder.counts.failed + forwarder.counts.forwarded == 2 })
        #expect(forwarder.counts.failed == 1 && forwarder.counts.forwarded == 1, "\(forwarder.counts)")
        #expect(forwarder.counts.lastFailure?.contains("still running after") == true, "\(String(describing: forwarder.counts.lastFailure))")
        #expect(forwarder.counts.dropped == 0)
    }

    /// A fake `xcrun` that writes its pid to the file `pid` (by a rename, so the file is never
    /// read half written) and then hangs for a minute as that same process.
    static func hangingXcrun() throws -> FakeXcrun {
        try FakeXcrun(body: #"echo $$ > "$(dirname "$0")/pid.tmp" && mv "$(dirname "$0")/pid.tmp" "$(dirname "$0")/pid"; exec sleep 60"#)
    }

    /// The pid the hanging `xcrun` wrote, once it has.
    static func hungPid(_ xcrun: FakeXcrun) async throws -> pid_t {
        let file = xcrun.folder.appendingPathComponent("pid")
        #expect(await pollUntil { FileManager.default.fileExists(atPath: file.path) }, "xcrun never started")
        let text = try String(contentsOf: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        return try #require(pid_t(text))
    }

    /// Whether a process with this pid exists (a zombie included): kill(2) with no signal.
    static func exists(_ pid: pid_t) -> Bool {
        kill(pid, 0) == 0 || errno != ESRCH
    }

    /// `stop()` ends a command that would run for a minute: once it returns, the child is
    /// gone (reaped, not a zombie) and counted as failed, long before the command's timeout.
    @Test func stopTerminatesTheRunningCommandAndReturnsOnceItIsGone() async throws {
        let xcrun = try Self.hangingXcrun()
        defer { xcrun.remove() }
        let forwarder = try SimulatorForwarder(
            settings: SimulatorForwardingSettings(device: "booted", commandTimeout: .seconds(3600)),
            xcrunPath: xcrun.folder.appendingPathComponent("xcrun").path)
        forwarder.enqueue(bundleID: "com.example.app", payload: Array(#"{"aps":{"alert":"hang"}}"#.utf8))
        forwarder.enqueue(bundleID: "com.example.app", payload: Array(#"{"aps":{"alert":"queued"}}"#.utf8))
        let pid = try await Self.hungPid(xcrun)
        #expect(Self.exists(pid))

        forwarder.stop(gracePeriod: .milliseconds(50))
        #expect(!Self.exists(pid), "xcrun \(pid) outlived stop()")
        #expect(forwarder.counts.failed == 1 && forwarder.counts.dropped == 1 && forwarder.counts.forwarded == 0, "\(forwarder.counts)")
        #expect(forwarder.counts.lastFailure?.contains("still running when forwarding stopped, terminated") == true,
                "\(String(describing: forwarder.counts.lastFailure))")
        forwarder.enqueue(bundleID: "com.example.app", payload: [])
        #expect(forwarder.counts.dropped == 2, "a stopped forwarder takes nothing")
        forwarder.stop()
    }

    /// A forwarder let go without `stop()` stops itself, ending its command without waiting
    /// for it: its worker does not keep it alive.
    @Test func aForwarderLetGoStopsItsCommand() async throws {
        let xcrun = try Self.hangingXcrun()
        defer { xcrun.remove() }
        var forwarder: SimulatorForwarder? = try SimulatorForwarder(
            settings: SimulatorForwardingSettings(device: "booted", commandTimeout: .seconds(3600)),
            xcrunPath: xcrun.folder.appendingPathComponent("xcrun").path)
        weak let watched = forwarder
        forwarder?.enqueue(bundleID: "com.example.app", payload: Array(#"{"aps":{"alert":"hang"}}"#.utf8))
        let pid = try await Self.hungPid(xcrun)
        forwarder = nil
        #expect(watched == nil, "the worker thread kept the forwarder alive")
        #expect(await pollUntil { !Self.exists(pid) }, "xcrun \(pid) outlived its forwarder")
    }

    @Test func settingsOutOfRangeAreRefusedNamingTheField() throws {
        #expect(throws: ConfigurationError.self) {
            _ = try SimulatorForwarder(settings: SimulatorForwardingSettings(device: "booted", queueCapacity: 0), xcrunPath: "/bin/true")
        }
        do {
            _ = try SimulatorForwarder(settings: SimulatorForwardingSettings(device: "-h"), xcrunPath: "/bin/true")
            Issue.record("a device starting with '-' is an option to simctl")
        } catch {
            #expect("\(error)".contains("simulator_forwarding.device"), "\(error)")
        }
        let decoded = try MockConfiguration.decode(
            .object(["simulator_forwarding": .object(["device": "booted", "queue_capacity": 3, "timeout_seconds": 1.5])]), baseDirectory: nil)
        #expect(decoded.simulatorForwarding == SimulatorForwardingSettings(device: "booted", queueCapacity: 3, commandTimeout: .milliseconds(1500)))
    }
}
