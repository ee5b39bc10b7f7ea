import Foundation
import FoundationXML
import HermesContract
import PushTestSupport
import StrictJSON
import Testing

/// The built `push-inspect`, run as scripts and CI run it.
@Suite(.timeLimit(.minutes(2)))
struct PushInspectCommandTests {
    typealias P = PushInspectProcess

    static func goodFile(count: Int = 4) throws -> String {
        try P.file((1...count).map { P.hermesLine(seq: $0, type: HermesPushType.allCases[($0 - 1) % 4]) }.joined(separator: "\n") + "\n")
    }

    static let leakyBody: @Sendable (String) -> String = {
        $0.replacingOccurrences(of: "Hermes finished the turn", with: "ran rm -rf /tmp/build")
    }

    @Test func exitCodesFollowTheCheckerConvention() async throws {
        let good = try Self.goodFile()
        let passing = try await P.run(["check", "--profile", "hermes", good])
        #expect(passing.status == 0, "\(passing.stdout)\(passing.stderr)")
        #expect(passing.stdout.contains("checked 4 pushes: 4 passed, 0 failed"))

        let bad = try P.file(P.hermesLine(seq: 1, type: .complete, editPayload: Self.leakyBody) + "\n")
        let failing = try await P.run(["check", "--profile", "hermes", bad])
        #expect(failing.status == 1)
        #expect(failing.stdout.contains("hermes.leaks[shell-command] aps.alert.body"))
        #expect(!failing.stdout.contains("rm -rf"), "values appear only with --show-values")
        let shown = try await P.run(["check", "--profile", "hermes", "--show-values", bad])
        #expect(shown.stdout.contains("rm -rf /tmp/build"))

        let usage = try await P.run(["check", "--profle", "hermes", good])
        #expect(usage.status == 2)
        #expect(usage.stderr.contains("Error: unknown option '--profle'; did you mean --profile?"))
        #expect(try await P.run(["check", "--profile", "nope", good]).status == 2)
        let missing = try await P.run(["check", "/nonexistent/pushes.jsonl"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("/nonexistent/pushes.jsonl"))
        #expect(try await P.run(["frobnicate"]).status == 2)
        let help = try await P.run(["check", "--help"])
        #expect(help.status == 0 && help.stdout.contains("USAGE: push-inspect check"))
    }

    @Test func quietPrintsNothing() async throws {
        let bad = try P.file(P.hermesLine(seq: 1, type: .complete, editPayload: Self.leakyBody) + "\n")
        let result = try await P.run(["check", "--quiet", "--profile", "hermes", bad])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
    }

    @Test func jsonOutputHasTheDocumentedShape() async throws {
        let lines = [P.hermesLine(seq: 1, type: .approval), P.hermesLine(seq: 2, type: .complete, editPayload: Self.leakyBody)]
        let file = try P.file(lines.joined(separator: "\n") + "\n")
        let result = try await P.run(["check", "--json", "--profile", "hermes", file])
        #expect(result.status == 1)
        guard case .object(let root) = try JSONParser.parse(Array(result.stdout.utf8)) else {
            Issue.record("not a JSON object: \(result.stdout)")
            return
        }
        #expect(root["pushes"] == 2 && root["passed"] == 1 && root["failed"] == 1 && root["input_errors"] == 0)
        #expect(root["wait_satisfied"] == .bool(true))
        #expect(Set(root.keys) == ["rules", "failures", "injected", "pushes", "passed", "failed", "findings", "input_errors",
                                   "wait_satisfied"])
        guard case .array(let rules)? = root["rules"], case .array(let failures)? = root["failures"],
              case .object(let failure)? = failures.first, case .array(let findings)? = failure["findings"]
        else {
            Issue.record("missing rules or failures: \(result.stdout)")
            return
        }
        #expect(rules.contains("hermes.leaks") && rules.contains("apple.aps-shape"))
        #expect(failure["source"] == .string(file) && failure["seq"] == 2)
        #expect(findings.contains(["rule": "hermes.leaks", "detector": "shell-command", "path": "aps.alert.body",
                                   "message": "looks like a shell command"]))
        #expect(!result.stdout.contains("\"value\""))
    }

    @Test func junitReportParsesBackWithOneCasePerPushPerRule() async throws {
        let lines = [P.hermesLine(seq: 1, type: .approval), P.hermesLine(seq: 2, type: .complete, editPayload: Self.leakyBody)]
        let file = try P.file(lines.joined(separator: "\n") + "\n")
        let report = NSTemporaryDirectory() + "push-inspect-\(UUID().uuidString).xml"
        let result = try await P.run(["check", "--quiet", "--profile", "hermes", "--junit", report, file])
        #expect(result.status == 1)
        let data = try Data(contentsOf: URL(fileURLWithPath: report))
        let counter = JUnitCounter()
        let parser = XMLParser(data: data)
        parser.delegate = counter
        #expect(parser.parse(), "well-formed XML")
        // apns.rejected, apple minus the background and Live Activity priority rules (alert
        // pushes) = 10, hermes = 10 rules.
        #expect(counter.testcases == 2 * 21, "\(counter.testcases)")
        #expect(counter.failures == 2, "allowed-values and leaks fail on the second push")
        #expect(counter.suiteTests == "\(2 * 21)" && counter.suiteFailures == "2")
    }

    /// Input problems are in the report as errors, as they are in the exit status: a CI page
    /// showing the report must not show a passing suite for a file that could not be read.
    @Test func junitReportRecordsInputErrors() async throws {
        let directory = NSTemporaryDirectory() + "push-inspect-junit-errors-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func report(_ arguments: [String]) async throws -> (status: Int32, counter: JUnitCounter, xml: String, stdout: String) {
            let path = directory + "/\(UUID().uuidString).xml"
            let result = try await P.run(["check", "--profile", "hermes", "--junit", path] + arguments)
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            let counter = JUnitCounter()
            let parser = XMLParser(data: data)
            parser.delegate = counter
            #expect(parser.parse(), "well-formed XML")
            return (result.status, counter, String(decoding: data, as: UTF8.self), result.stdout)
        }

        let missingPath = directory + "/missing.jsonl"
        let missing = try await report([missingPath])
        #expect(missing.status == 2)
        #expect(missing.counter.errors == 1 && missing.counter.suiteErrors == "1" && missing.counter.testcases == 1, "\(missing.xml)")
        #expect(missing.xml.contains(missingPath), "the error names the file: \(missing.xml)")
        #expect(missing.stdout.contains("checked 0 pushes: 0 passed, 0 failed; 1 input error"), "\(missing.stdout)")

        let damaged = try P.file(P.hermesLine(seq: 1, type: .approval) + "\nnot json\n" + String(repeating: "x\n", count: 150))
        defer { try? FileManager.default.removeItem(atPath: damaged) }
        let garbage = try await report([damaged])
        #expect(garbage.status == 2)
        // 100 damaged lines listed one by one, the other 51 as one count, beside the good push's rules.
        #expect(garbage.counter.errors == 101 && garbage.counter.suiteErrors == "101", "\(garbage.xml.suffix(2000))")
        #expect(garbage.counter.failures == 0 && garbage.counter.testcases == 21 + 101,
                "apns.rejected, apple and hermes on the good push, and the errors")
        #expect(garbage.xml.contains("\(damaged):2: malformed-line: not JSON"), "\(garbage.xml.prefix(3000))")
        #expect(garbage.xml.contains("and 51 more input errors"), "\(garbage.xml.suffix(1000))")
    }

    /// A report path that is not a regular file is written through, not replaced: the
    /// target of a symlink (the link stays), a FIFO (its reader gets the report); a FIFO no one
    /// reads is an error, not a hang; and an input named as the report is refused untouched.
    @Test func junitWritesThroughLinksAndFIFOsAndNeverOverAnInput() async throws {
        let capture = try Self.goodFile(count: 1)
        defer { try? FileManager.default.removeItem(atPath: capture) }
        let directory = NSTemporaryDirectory() + "push-inspect-junit-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func kind(_ path: String) -> mode_t {
            var status = stat()
            return lstat(path, &status) == 0 ? status.st_mode & S_IFMT : 0
        }

        let target = directory + "/artifact.xml", link = directory + "/report.xml"
        try "OLD REPORT".write(toFile: target, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let linked = try await P.run(["check", "--quiet", "--junit", link, capture])
        #expect(linked.status == 0, "\(linked.stderr)")
        #expect(kind(link) == S_IFLNK)
        #expect(try String(contentsOfFile: target, encoding: .utf8).contains("<testsuite"))

        let fifo = directory + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let unread = try await P.run(["check", "--quiet", "--junit", fifo, capture])
        #expect(unread.status == 2)
        #expect(unread.stderr.contains("\(fifo): cannot write the report: it is a FIFO that no one is reading"), "\(unread.stderr)")
        #expect(kind(fifo) == S_IFIFO)
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { _ = close(reader) }
        let piped = try await P.run(["check", "--quiet", "--junit", fifo, capture])
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(kind(fifo) == S_IFIFO)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let count = read(reader, &buffer, buffer.count)
        #expect(String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self).contains("<testsuite"))

        let before = try String(contentsOfFile: capture, encoding: .utf8)
        let overwrite = try await P.run(["check", "--junit", capture, capture])
        #expect(overwrite.status == 2)
        #expect(overwrite.stderr.contains("--junit: \(capture) is also an input (\(capture))"), "\(overwrite.stderr)")
        #expect(try String(contentsOfFile: capture, encoding: .utf8) == before)
        let viaLink = directory + "/capture-link.jsonl"
        try FileManager.default.createSymbolicLink(atPath: viaLink, withDestinationPath: capture)
        #expect(try await P.run(["check", "--junit", viaLink, capture]).status == 2)
        #expect(try String(contentsOfFile: capture, encoding: .utf8) == before)
    }

    @Test func damagedLinesAreNamedAndTheRunCarriesOn() async throws {
        let good = P.hermesLine(seq: 1, type: .approval)
        let truncated = try P.file(good + "\n" + String(good.prefix(40)))
        let cut = try await P.run(["check", "--profile", "hermes", truncated])
        #expect(cut.status == 0, "a truncated last line is only a warning")
        #expect(cut.stderr.contains("warning: \(truncated):2: skipped a truncated last line"))
        #expect(cut.stdout.contains("checked 1 push: 1 passed"))

        let malformed = try P.file(good + "\n{not json}\n" + P.hermesLine(seq: 2, type: .error) + "\n")
        let bad = try await P.run(["check", "--profile", "hermes", malformed])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("\(malformed):2: malformed-line"))
        #expect(bad.stdout.contains("checked 2 pushes: 2 passed"))
    }

    @Test func singlePayloadsFromStandardInputAndFiles() async throws {
        let payload = String(decoding: HermesNotification(type: .clarify, sessionID: "s-1").payload(), as: UTF8.self)
        let stdin = try await P.run(["check", "--profile", "hermes", "--no-apple", "--push-type", "alert", "--priority", "10",
                                     "--topic", "com.example.app", "--expiration", "9999999999"], input: payload)
        #expect(stdin.status == 1, "no collapse id or apns-id: the hermes headers rule fails")
        #expect(stdin.stdout.contains("hermes.headers header:apns-collapse-id"))
        #expect(!stdin.stdout.contains("allowed-values"))

        let file = try P.file(#"{"aps":{"alert":"hi","bogus":1}}"#, suffix: ".json")
        let fromFile = try await P.run(["check", file])
        #expect(fromFile.status == 1)
        #expect(fromFile.stdout.contains("apple.aps-unknown-key aps.bogus"))

        let notJSON = try P.file("{", suffix: ".json")
        #expect(try await P.run(["check", notJSON]).status == 1, "a body that is not JSON is a failing push, not an input error")
    }

    /// Options that could only be ignored or misread are usage errors: a `--timeout` with
    /// no `--wait` or `--follow` to time out, and standard input named twice (read twice,
    /// every push counted twice).
    @Test func aTimeoutWithNothingToTimeOutAndStandardInputTwiceAreUsageErrors() async throws {
        let file = try Self.goodFile(count: 1)
        defer { try? FileManager.default.removeItem(atPath: file) }
        for command in ["check", "show"] {
            let result = try await P.run([command, "--timeout", "5", file])
            #expect(result.status == 2 && result.stdout.isEmpty, "\(command): \(result.stdout)")
            #expect(result.stderr.hasPrefix("Error: --timeout needs --wait or --follow\nUsage: push-inspect \(command)"), "\(result.stderr)")
        }
        let stats = try await P.run(["stats", "--timeout", "5", file])
        #expect(stats.status == 2 && stats.stderr.hasPrefix("Error: --timeout needs --wait\nUsage: push-inspect stats"), "\(stats.stderr)")
        #expect(try await P.run(["check", "--follow", "--timeout", "1", file]).status == 0)

        let redirected = try await SpawnedProcess.runDetached(
            "/bin/sh", ["-c", "\"$1\" check - - < \"$2\"", "sh", P.executable.path, file], timeout: 60)
        #expect(redirected.status == 2 && redirected.stdout.isEmpty, "\(redirected.stdout)")
        #expect(redirected.stderr.hasPrefix("Error: - (standard input) is given more than once\nUsage: "), "\(redirected.stderr)")
        #expect(try await P.run(["check", "-", file], input: P.hermesLine(seq: 1, type: .approval) + "\n").status == 0)
    }

    /// A directory or a device named as a payload or policy is refused saying what it is,
    /// not read as if it were a file (a bare "Is a directory", or `/dev/zero` read to the
    /// size limit and called too large).
    @Test func aDirectoryOrDeviceAsAPayloadOrPolicySaysWhatItIs() async throws {
        let payload = try P.file(#"{"aps":{"alert":"x"}}"#, suffix: ".json")
        defer { try? FileManager.default.removeItem(atPath: payload) }
        let directory = NSTemporaryDirectory()
        let policy = try await P.run(["check", "--policy", directory, payload])
        #expect(policy.status == 2 && policy.stdout.isEmpty)
        #expect(policy.stderr.contains("error: \(directory): cannot read the file: it is a directory, not a regular file"), "\(policy.stderr)")
        let device = try await P.run(["check", "--payload", "/dev/zero"])
        #expect(device.status == 2)
        #expect(device.stderr.contains("error: /dev/zero: cannot read the file: it is a character device, not a regular file"),
                "\(device.stderr)")
        let folder = try await P.run(["check", "--payload", directory])
        #expect(folder.status == 2 && folder.stderr.contains("it is a directory, not a regular file"), "\(folder.stderr)")
    }

    /// One line ending at the end of a bare payload file (an editor's, `echo`'s) is not part
    /// of the payload: a 4096-byte payload saved with one passes `apple.payload-size`.
    @Test func aPayloadFilesFinalNewlineIsNotPartOfThePayload() async throws {
        func payload(size: Int) -> String {
            let empty = #"{"aps":{"alert":"x"},"pad":""}"#
            return #"{"aps":{"alert":"x"},"pad":""# + String(repeating: "a", count: size - empty.utf8.count) + #""}"#
        }
        let headers = ["--push-type", "alert", "--topic", "com.example.app"]
        for ending in ["\n", "\r\n"] {
            let file = try P.file(payload(size: 4096) + ending, suffix: ".json")
            defer { try? FileManager.default.removeItem(atPath: file) }
            let result = try await P.run(["check"] + headers + [file])
            #expect(result.status == 0, "\(ending.debugDescription): \(result.stdout)\(result.stderr)")
        }
        let piped = try await P.run(["check"] + headers + ["-"], input: payload(size: 4096) + "\n")
        #expect(piped.status == 0, "\(piped.stdout)\(piped.stderr)")
        for text in [payload(size: 4097) + "\n", payload(size: 4096) + "\n\n"] {
            let file = try P.file(text, suffix: ".json")
            defer { try? FileManager.default.removeItem(atPath: file) }
            let result = try await P.run(["check"] + headers + [file])
            #expect(result.status == 1 && result.stdout.contains("apple.payload-size $: the payload is 4097 bytes"), "\(result.stdout)")
        }
    }

    /// A bare payload is read up to a limit, not whole: endless standard input is an error.
    @Test func bigBarePayloadsAreRefusedAtTheLimit() async throws {
        let result = try await P.run(["check", "--payload", "-"], input: String(repeating: " ", count: 2 << 20))
        #expect(result.status == 2)
        #expect(result.stderr.contains("error: <stdin>: larger than 1 MiB, the most push-inspect reads from a payload"), "\(result.stderr)")
    }

    /// Output that could not be written (standard output on a full disk) fails the run with
    /// a message, and an error that cannot be written (standard error on a full disk) never
    /// crashes it: the exit status still says 2.
    @Test func failedWritesAreErrorsAndNeverCrashes() async throws {
        var status = stat()
        try #require(stat("/dev/full", &status) == 0 && status.st_mode & S_IFMT == S_IFCHR, "/dev/full must be the device")
        let good = try Self.goodFile(count: 1)
        let damaged = try P.file(P.hermesLine(seq: 1, type: .approval) + "\nnot json\n")
        defer {
            try? FileManager.default.removeItem(atPath: good)
            try? FileManager.default.removeItem(atPath: damaged)
        }
        func shell(_ script: String, _ file: String) async throws -> SpawnedProcess.Result {
            try await SpawnedProcess.runDetached("/bin/sh", ["-c", script, "sh", P.executable.path, file], timeout: 60)
        }
        for arguments in ["check --json", "show", "stats --json", "--help", "check --help"] {
            let full = try await shell("\"$1\" \(arguments) \"$2\" > /dev/full", good)
            #expect(full.status == 2, "\(arguments): \(full.stderr)")
            #expect(full.stderr.contains("rror: cannot write") && full.stderr.contains("to standard output: No space left on device"),
                    "\(arguments): \(full.stderr)")
        }
        let noErrors = try await shell("\"$1\" check \"$2\" 2> /dev/full", damaged)
        #expect(noErrors.status == 2, "\(noErrors.stdout)")
        #expect(noErrors.stdout.contains("checked 1 push"))
        let noUsage = try await shell("\"$1\" check --no-such-flag \"$2\" 2> /dev/full", good)
        #expect(noUsage.status == 2)
    }

    @Test func simulatorFilesUseTheirTargetBundleAsTopic() async throws {
        let good = try P.file(#"{"Simulator Target Bundle":"com.example.app","aps":{"alert":{"title":"Hi","body":"There"}}}"#, suffix: ".apns")
        let passing = try await P.run(["check", good])
        #expect(passing.status == 0, "\(passing.stdout)\(passing.stderr)")
        let voip = try P.file(#"{"Simulator Target Bundle":"com.example.app","aps":{"alert":"x"}}"#, suffix: ".apns")
        let failing = try await P.run(["check", "--push-type", "voip", voip])
        #expect(failing.stdout.contains("apple.topic-suffix header:apns-topic"))
        let noBundle = try P.file(#"{"aps":{"alert":"x"}}"#, suffix: ".apns")
        let error = try await P.run(["check", noBundle])
        #expect(error.status == 2 && error.stderr.contains("Simulator Target Bundle"))
    }

    @Test func policyFilesAddRules() async throws {
        let policy = try P.file(#"{"name":"app","allowed_keys":["aps"],"leaks":{"detectors":["email"]}}"#, suffix: ".json")
        let push = try P.file(#"{"aps":{"alert":"x"},"to":"ann@example.com"}"#, suffix: ".json")
        let result = try await P.run(["check", "--policy", policy, "--no-apple", "--payload", push])
        #expect(result.status == 1)
        #expect(result.stdout.contains("app.allowed-keys to:") && result.stdout.contains("app.leaks[email] to:"))
        let broken = try P.file(#"{"allowed_keys":"aps"}"#, suffix: ".json")
        let error = try await P.run(["check", "--policy", broken, push])
        #expect(error.status == 2 && error.stderr.contains("\(broken): allowed_keys: must be an array"))
        // A camelCase key is refused as any unknown key is, naming its snake_case name.
        let camel = try P.file(#"{"headers":[{"maximumExpirationDelay":3600}]}"#, suffix: ".json")
        let renamed = try await P.run(["check", "--policy", camel, push])
        #expect(renamed.status == 2 && renamed.stdout.isEmpty, "\(renamed.stdout)")
        #expect(renamed.stderr.contains(#"error: \#(camel): headers[0].maximumExpirationDelay: unknown key; it is now "maximum_expiration_delay""#),
                "\(renamed.stderr)")
        let negative = try P.file(#"{"badge":[{"maximum":-1}]}"#, suffix: ".json")
        let refused = try await P.run(["check", "--policy", negative, push])
        #expect(refused.status == 2 && refused.stderr.contains("\(negative): badge[0].maximum: must be an integer ≥ 0, found -1"),
                "\(refused.stderr)")
    }

    /// Without apple, a payload that does not parse is still a failure, named as such.
    @Test func unparseablePayloadFailsWithoutApple() async throws {
        let push = try P.file(#"{"aps":{"alert":"mail ann@example.com","badge":-1},"email":"bob@example.com","email":"x"}"#,
                              suffix: ".json")
        defer { try? FileManager.default.removeItem(atPath: push) }
        let result = try await P.run(["check", "--no-apple", "--profile", "privacy", "--profile", "badge",
                                      "--push-type", "alert", "--topic", "com.example.app", push])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("input.unjudged-payload $: the payload is not JSON: "), "\(result.stdout)")
        #expect(result.stdout.contains("; no rule could judge it"), "\(result.stdout)")
    }

    /// A policy's name prefixes rule ids in every output: one with controls is refused,
    /// escaped, before anything reaches the terminal, and two policies of one name (two
    /// files without one, both "policy") would merge their counts.
    @Test func policyNamesAreIdentifiersAndUnique() async throws {
        let push = try P.file(#"{"aps":{"alert":"x"}}"#, suffix: ".json")
        defer { try? FileManager.default.removeItem(atPath: push) }
        let hostile = try P.file(#"{"name":"my\u001b[31m\u202eapp\nFAKE LINE","required_keys":["nope"]}"#, suffix: ".json")
        let refused = try await P.run(["check", "--policy", hostile, push])
        #expect(refused.status == 2 && refused.stdout.isEmpty)
        #expect(refused.stderr.contains(#"\#(hostile): name: must be 1 to 64 ASCII letters"#), "\(refused.stderr)")
        #expect(refused.stderr.contains(#"found "my\u001b[31m\u202eapp\nFAKE LINE""#), "\(refused.stderr)")
        #expect(!refused.stderr.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{202E}" }, "\(refused.stderr.debugDescription)")

        let first = try P.file(#"{"required_keys":["a"]}"#, suffix: ".json")
        let second = try P.file(#"{"required_keys":["b"]}"#, suffix: ".json")
        let unnamed = try await P.run(["check", "--policy", first, "--policy", second, push])
        #expect(unnamed.status == 2)
        #expect(unnamed.stderr.contains(#"error: \#(second): name: "policy" (the name of a policy that gives none) is also the name "#
            + #"of the policy in \#(first); give each policy file its own "name""#), "\(unnamed.stderr)")
        let named = try P.file(#"{"name":"app","required_keys":["b"]}"#, suffix: ".json")
        let again = try await P.run(["check", "--policy", named, "--policy", named, push])
        #expect(again.status == 2 && again.stderr.contains(#"name: "app" is also the name of the policy in \#(named)"#), "\(again.stderr)")
        let apple = try P.file(#"{"name":"apple","required_keys":["b"]}"#, suffix: ".json")
        let builtIn = try await P.run(["check", "--policy", apple, push])
        #expect(builtIn.status == 2 && builtIn.stderr.contains(#"name: "apple" is the name of a built-in profile"#), "\(builtIn.stderr)")
        let distinct = try await P.run(["check", "--policy", first, "--policy", named, push])
        #expect(distinct.status == 1, "both apply, each under its own name: \(distinct.stderr)")
        #expect(distinct.stdout.contains("policy.required-keys a") && distinct.stdout.contains("app.required-keys b"), "\(distinct.stdout)")
    }

    /// `--follow --timeout S` ends only after S quiet seconds: counted in whole seconds of
    /// the wall clock it ended up to a second early (`--timeout 1` after 0.2 s) and missed a
    /// push written in time.
    @Test func followTimeoutWaitsTheWholeQuietTime() async throws {
        let file = try Self.goodFile()
        for _ in 0..<3 {
            let started = ContinuousClock.now
            let result = try await P.run(["check", "--profile", "hermes", "--follow", "--timeout", "1", file])
            let took = started.duration(to: .now)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(took >= .seconds(1), "ended after \(took), before the file was quiet for 1 s")
        }
    }

    @Test func onlyCheckAndShowFollowAsTheirHelpSays() async throws {
        let file = try Self.goodFile()
        let stats = try await P.run(["stats", "--follow", "--timeout", "1", file])
        #expect(stats.status == 2)
        #expect(stats.stderr.contains("Error: unknown option '--follow'"), "\(stats.stderr)")
        #expect(stats.stdout.isEmpty)
        let statsHelp = try await P.run(["help", "stats"])
        #expect(statsHelp.status == 0 && !statsHelp.stdout.contains("--follow"), "\(statsHelp.stdout)")
        for command in ["check", "show"] {
            let help = try await P.run(["help", command])
            let usage = help.stdout.split(separator: "\n").first { $0.hasPrefix("USAGE:") } ?? ""
            #expect(usage.hasSuffix("[--follow]"), "\(command): \(usage)")
            #expect(help.stdout.contains("  --follow "), "\(command)")
        }
    }

    /// A record's `push_type` is the type the mock inferred when no `apns-push-type` was sent
    /// (docs/capture-format.md); the rules, `show` and `stats` see the header as sent.
    @Test func aRecordsInferredPushTypeDoesNotStandInForTheHeader() async throws {
        let file = try P.file(P.hermesLine(seq: 1, type: .approval, omitting: "apns-push-type", settled: [("push_type", "alert")]) + "\n")
        let result = try await P.run(["check", "--profile", "hermes", file])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("apple.push-type header:apns-push-type: no apns-push-type"), "\(result.stdout)")
        #expect(result.stdout.contains("hermes.headers header:apns-push-type: apns-push-type must be alert"), "\(result.stdout)")
        let stats = try await P.run(["stats", file])
        #expect(stats.stdout.contains("1  (none)") && !stats.stdout.contains("1  alert"), "\(stats.stdout)")
    }

    /// A captured VoIP push sent without `apns-push-type` (the mock inferred `voip` from the
    /// topic and accepted 5000 bytes) fails for the missing header, not for its size.
    @Test func anUntypedCapturedVoIPPushIsJudgedByTheVoIPLimit() async throws {
        let payload = #"{"aps":{},"call":"\#(String(repeating: "a", count: 5000))"}"#
        let line = P.captureLine(seq: 1, headers: [("apns-topic", "com.example.app.voip")], payload: payload,
                                 settled: [("push_type", "voip")])
        let result = try await P.run(["check", try P.file(line + "\n")])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("apple.push-type header:apns-push-type: no apns-push-type"), "\(result.stdout)")
        #expect(!result.stdout.contains("apple.payload-size"), "\(result.stdout)")
    }

    /// Titles, bodies and the other text columns are the sender's: `show` escapes control
    /// characters in them as `check` does in values (JSON string escapes), so a push can
    /// neither forge table rows nor send the terminal escape sequences.
    @Test func showEscapesControlCharacters() async throws {
        let forged = #"{"aps":{"alert":{"title":"\u001b[2J\u001b]0;pwned\u0007","body":"hi\n2026-11-30 10:00:00  forged"}}}"#
        let lines = [P.captureLine(seq: 1, headers: [("apns-topic", "com.example.app"), ("apns-push-type", "alert")], payload: forged),
                     P.captureLine(seq: 2, headers: [("apns-topic", "com.example.app")], payload: #"{"aps":{"alert":"x"}}"#,
                                   status: 400, reason: "BadDeviceToken\r\u{1B}[32m")]
        let file = try P.file(lines.joined(separator: "\n") + "\n")
        let show = try await P.run(["show", file])
        #expect(show.status == 0)
        #expect(show.stdout.split(separator: "\n").count == 3, "a header and two rows: \(show.stdout)")
        #expect(!show.stdout.utf8.contains { $0 < 0x20 && $0 != UInt8(ascii: "\n") }, "\(show.stdout.debugDescription)")
        #expect(show.stdout.contains(#"\u001b[2J\u001b]0;pwned\u0007 — hi\n2026-11-30"#), "\(show.stdout)")
        #expect(show.stdout.contains(#"400 BadDeviceToken\r\u001b[32m"#), "\(show.stdout)")
    }

    /// `show` shortens a long column to its width with `…`, cutting between whole
    /// characters of the sender's text, never inside the escape of one (`\u00`, `\`), so
    /// the columns after it stay aligned.
    @Test func showShortensColumnsBetweenEscapes() async throws {
        let bodies = [String(repeating: "a", count: 45) + "\u{9B}31m and more",
                      String(repeating: "a", count: 46) + "\\x and more",
                      String(repeating: "a", count: 46) + "é🇫🇷 and more",
                      "short"]
        let lines = bodies.enumerated().map { index, body in
            var payload: [UInt8] = []
            JSONWriter.write(["aps": ["alert": .string(body)]], into: &payload)
            return P.captureLine(seq: index + 1, headers: [("apns-topic", "com.example.app"), ("apns-push-type", "alert")],
                                 payload: String(decoding: payload, as: UTF8.self))
        }
        let show = try await P.run(["show", try P.file(lines.joined(separator: "\n") + "\n")])
        #expect(show.status == 0, "\(show.stderr)")
        let rows = show.stdout.split(separator: "\n").map(String.init)
        #expect(rows.count == 5, "\(show.stdout)")
        guard rows.count == 5 else { return }
        #expect(rows[1].contains(String(repeating: "a", count: 45) + "…  "), "\(rows[1])")
        #expect(rows[2].contains(String(repeating: "a", count: 46) + "…  "), "\(rows[2])")
        #expect(rows[3].contains(String(repeating: "a", count: 46) + "é…  "), "\(rows[3])")
        #expect(!show.stdout.contains(#"\…"#) && !show.stdout.contains(#"\u…"#) && !show.stdout.contains(#"\u00…"#), "\(show.stdout)")
        // The outcome column starts at the same character in every row.
        func outcomeColumn(_ row: String) -> Int? {
            row.range(of: "OUTCOME").map { row.distance(from: row.startIndex, to: $0.lowerBound) }
                ?? row.range(of: "200 accepted").map { row.distance(from: row.startIndex, to: $0.lowerBound) }
        }
        #expect(Set(rows.map(outcomeColumn)).count == 1, "\(show.stdout)")
    }

    /// `show` lays its columns out by the columns a terminal gives each character, not by
    /// counting characters: CJK text and emoji take two, a combining accent none. A cut never
    /// splits a character, and where a wide character would straddle the edge it ends a
    /// column short and is padded, so every row's outcome starts at the same column.
    @Test func showLaysOutColumnsByDisplayWidth() async throws {
        let rows: [(topic: String, body: String)] = [
            ("com.example.app", String(repeating: "漢", count: 30)),
            ("com.example.app", String(repeating: "漢", count: 24)),
            ("com.example.app", "a" + String(repeating: "😀", count: 30)),
            ("com.example.app", String(repeating: "e\u{301}", count: 60)),
            ("com.例え.アプリ", "日本語 ok e\u{301}"),
            ("com.example.app", "\u{301}accent first"),
        ]
        let (show, shown) = try await Self.show(rows)
        #expect(shown.count == 7, "\(show.stdout)")
        guard shown.count == 7 else { return }
        func has(_ row: Int, _ text: String) -> Bool { Self.line(shown[row], contains: text) }
        #expect(has(1, String(repeating: "漢", count: 23) + "…   200 accepted"), "a straddling wide character: padded")
        #expect(has(2, String(repeating: "漢", count: 24) + "  200 accepted"), "48 columns exactly: not cut")
        #expect(has(3, "a" + String(repeating: "😀", count: 23) + "…  200 accepted"))
        #expect(has(4, String(repeating: "e\u{301}", count: 47) + "…  200 accepted"), "accents take no column")
        #expect(has(5, "com.例え.アプリ" + String(repeating: " ", count: 24 - 15 + 2) + "alert"))
        #expect(has(5, "日本語 ok e\u{301}" + String(repeating: " ", count: 48 - 11 + 2) + "200 accepted"))
        #expect(has(6, "\u{301}accent first" + String(repeating: " ", count: 48 - 12 + 2) + "200 accepted"),
                "a lone accent is a character of its own, but takes no column")
        // The outcome column starts at the same terminal column in every row, the header's included.
        func columns(_ scalars: ArraySlice<Unicode.Scalar>) -> Int {
            String(String.UnicodeScalarView(scalars)).reduce(0) { total, character in
                total + (character.unicodeScalars.map { scalar -> Int in
                    switch scalar.value {
                    case 0x300...0x36F: 0
                    case 0x3000...0x9FFF, 0x1F300...0x1FAFF: 2
                    default: 1
                    }
                }.max() ?? 0)
            }
        }
        let starts = shown.map { row -> Int? in
            for marker in ["OUTCOME", "200 accepted"] {
                let needle = Array(marker.unicodeScalars)
                if let start = row.indices.first(where: { row[$0...].starts(with: needle) }) { return columns(row[..<start]) }
            }
            return nil
        }
        // Seq, time, apns-id, token, topic, type, environment and title / body, two spaces apart.
        #expect(starts == Array(repeating: 6 + 19 + 36 + 11 + 24 + 12 + 10 + 48 + 8 * 2, count: 7), "\(show.stdout)")
    }

    /// A skin-tone modifier after anything but an emoji it modifies is drawn as an emoji of
    /// its own, two columns, though a run of them is one grapheme cluster: `show` measures
    /// and cuts them as the terminal draws them, and 👍🏻 stays two columns.
    @Test func showCountsStraySkinToneModifiersAsTerminalsDrawThem() async throws {
        let modifier = "\u{1F3FB}"
        let rows: [(topic: String, body: String)] = [
            (String(repeating: modifier, count: 5), String(repeating: modifier, count: 30)),
            ("com.example.app", "\u{1F44D}\u{1F3FB}\u{1F3FB}"),
            ("com.example.app", "\u{1F44D}\u{1F3FB} ok"),
        ]
        let (show, shown) = try await Self.show(rows)
        #expect(shown.count == 4, "\(show.stdout)")
        guard shown.count == 4 else { return }
        func has(_ row: Int, _ text: String) -> Bool { Self.line(shown[row], contains: text) }
        #expect(has(1, String(repeating: modifier, count: 5) + String(repeating: " ", count: 24 - 10 + 2) + "alert"), "\(show.stdout)")
        #expect(has(1, String(repeating: modifier, count: 23) + "…   200 accepted"), "cut between modifiers, padded: \(show.stdout)")
        #expect(has(2, "\u{1F44D}\u{1F3FB}\u{1F3FB}" + String(repeating: " ", count: 48 - 4 + 2) + "200 accepted"), "\(show.stdout)")
        #expect(has(3, "\u{1F44D}\u{1F3FB} ok" + String(repeating: " ", count: 48 - 5 + 2) + "200 accepted"), "\(show.stdout)")
    }

    /// `show` of one alert push per row, and its output lines as scalars: String comparison
    /// would take the composed é for e + U+0301.
    static func show(_ rows: [(topic: String, body: String)]) async throws
        -> (result: PushInspectProcess.Result, lines: [[Unicode.Scalar]]) {
        let lines = rows.enumerated().map { index, row in
            var payload: [UInt8] = []
            JSONWriter.write(["aps": ["alert": .string(row.body)]], into: &payload)
            return P.captureLine(seq: index + 1, headers: [("apns-topic", row.topic), ("apns-push-type", "alert")],
                                 payload: String(decoding: payload, as: UTF8.self))
        }
        let show = try await P.run(["show", try P.file(lines.joined(separator: "\n") + "\n")])
        #expect(show.status == 0, "\(show.stderr)")
        return (show, show.stdout.split(separator: "\n").map { Array(String($0).unicodeScalars) })
    }

    /// Whether `line` holds `text`, scalar for scalar.
    static func line(_ line: [Unicode.Scalar], contains text: String) -> Bool {
        let needle = Array(text.unicodeScalars)
        return line.indices.contains { line[$0...].starts(with: needle) }
    }

    /// Whether `text` holds, unescaped, a character a terminal acts on beyond C0: DEL, a C1
    /// control, a bidirectional control, U+2028 or U+2029.
    static func hasRawTerminalControls(_ text: String) -> Bool {
        text.unicodeScalars.contains {
            switch $0.value {
            case 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069: true
            default: false
            }
        }
    }

    /// DEL, C1 controls (the 8-bit CSI U+009B), bidirectional controls and U+2028/U+2029 in a
    /// sender's text are escaped as `\uXXXX` wherever push-inspect prints it: show's table,
    /// check's values and paths, stats' keys, the JUnit report, and the JSON outputs, which
    /// still parse back to the same text.
    @Test func textFromTheSenderReachesNoTerminalUnescaped() async throws {
        let title = "\u{9B}31mred\u{7F}\u{202E}evil\u{2066}\u{61C}\u{200F}\u{2028}x"
        var payload: [UInt8] = []
        JSONWriter.write(["aps": ["alert": ["title": .string(title), "body": "b"]], "type": "approval", "k\u{9B}2J\u{1B}": 1],
                         into: &payload)
        let lines = [P.captureLine(seq: 1, headers: [("apns-topic", "com.example.app"), ("apns-push-type", "alert")],
                                   payload: String(decoding: payload, as: UTF8.self)),
                     P.captureLine(seq: 2, headers: [("apns-topic", "com.example.app")], payload: #"{"aps":{"alert":"x"}}"#,
                                   status: 400, reason: "BadDeviceToken\u{9B}2J")]
        let file = try P.file(lines.joined(separator: "\n") + "\n")

        let show = try await P.run(["show", file])
        let report = NSTemporaryDirectory() + "push-inspect-\(UUID().uuidString).xml"
        defer { try? FileManager.default.removeItem(atPath: report) }
        let check = try await P.run(["check", "--profile", "hermes", "--show-values", "--junit", report, file])
        let stats = try await P.run(["stats", file])
        for (name, result) in [("show", show), ("check", check), ("stats", stats)] {
            #expect(!Self.hasRawTerminalControls(result.stdout + result.stderr), "\(name): \(result.stdout.debugDescription)")
        }
        let junit = try String(contentsOfFile: report, encoding: .utf8)
        #expect(!Self.hasRawTerminalControls(junit), "junit: \(junit.debugDescription)")
        #expect(junit.contains(#"(value: &quot;\u009b31mred\u007f\u202eevil\u2066\u061c\u200f\u2028x&quot;)"#), "\(junit)")
        #expect(show.stdout.contains(#"  \u009b31mred\u007f\u202eevil\u2066\u061c\u200f…  "#), "\(show.stdout)")
        #expect(show.stdout.contains(#"400 BadDeviceToken\u009b2J"#), "\(show.stdout)")
        #expect(check.stdout.contains(#"hermes.allowed-keys ["k\u009b2J\u001b"]: "#), "\(check.stdout)")
        #expect(check.stdout.contains(#"value: "\u009b31mred\u007f\u202eevil\u2066\u061c\u200f\u2028x""#), "\(check.stdout)")
        #expect(stats.stdout.contains(#"1  BadDeviceToken\u009b2J"#), "\(stats.stdout)")

        let showJSON = try await P.run(["show", "--json", file])
        let checkJSON = try await P.run(["check", "--json", "--profile", "hermes", "--show-values", file])
        let statsJSON = try await P.run(["stats", "--json", file])
        for (name, result) in [("show", showJSON), ("check", checkJSON), ("stats", statsJSON)] {
            #expect(!Self.hasRawTerminalControls(result.stdout), "\(name) --json: \(result.stdout.debugDescription)")
            #expect(throws: Never.self, "\(name) --json") { try JSONParser.parse(Array(result.stdout.utf8)) }
        }
        guard case .array(let rows) = try JSONParser.parse(Array(showJSON.stdout.utf8)), let first = rows.first else {
            Issue.record("show --json: \(showJSON.stdout)")
            return
        }
        #expect(first.value(atKeys: ["alert"]) == .string(title + " — b"))
    }

    /// The topic, push type and collapse id on check's `FAIL` line and in header findings
    /// (`--show-values`) are the sender's text, escaped as show's columns are.
    /// A damaged line's own text in an error message (a bad time, environment, push type or
    /// connection action) is escaped like any text from a capture: it can neither act on the
    /// terminal nor start a line of its own.
    @Test func damagedLineErrorsEscapeTheLinesText() async throws {
        let hostile = #""x\u001b]0;PWNED\u0007\u001b[31m\u202e\nchecked 9 pushes: 9 passed, 0 failed\rfake""#
        let line = P.hermesLine(seq: 1, type: .approval)
        let damaged = [
            line.replacingOccurrences(of: #""time":"2026-11-30T10:00:00.000000Z""#, with: #""time":"# + hostile),
            line.replacingOccurrences(of: #""env":"sandbox""#, with: #""env":"# + hostile),
            line.replacingOccurrences(of: #""conn_action":"none""#, with: #""conn_action":"# + hostile),
            line.replacingOccurrences(of: #""device_token":"#, with: #""push_type":"# + hostile + #","device_token":"#),
        ]
        #expect(!damaged.contains(line))
        let file = try P.file(damaged.joined(separator: "\n") + "\n")
        defer { try? FileManager.default.removeItem(atPath: file) }
        let result = try await P.run(["check", "--profile", "hermes", file])
        #expect(result.status == 2)
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 4 && lines.allSatisfy { $0.hasPrefix("error: \(file):") }, "\(result.stderr)")
        #expect(!result.stderr.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || $0.value == 0x202E }, "\(result.stderr)")
        #expect(result.stderr.contains(#"is not a capture timestamp: "x\u001b]0;PWNED\u0007"#), "\(result.stderr)")
    }

    /// A priority or expiration that is not a number is what the sender sent, which APNs
    /// rejects (BadPriority, BadExpirationDate): a finding, not an absent header.
    @Test func nonNumericPriorityAndExpirationAreFindings() async throws {
        let sent: [(name: String, value: String, rule: String)] = [
            ("apns-priority", "high", "apple.priority"), ("apns-priority", "10 ", "apple.priority"),
            ("apns-expiration", "tomorrow", "apple.expiration"), ("apns-expiration", "1e9", "apple.expiration"),
        ]
        let lines = sent.enumerated().map { index, header in
            P.captureLine(seq: index + 1, headers: [("apns-topic", "com.example.app"), ("apns-push-type", "alert"), (header.name, header.value)],
                          payload: #"{"aps":{"alert":"hi"}}"#, status: 400, reason: header.rule == "apple.priority" ? "BadPriority" : "BadExpirationDate")
        }
        let file = try P.file(lines.joined(separator: "\n") + "\n")
        defer { try? FileManager.default.removeItem(atPath: file) }
        let result = try await P.run(["check", "--show-values", file])
        #expect(result.status == 1, "\(result.stderr)")
        for (index, header) in sent.enumerated() {
            #expect(result.stdout.contains("FAIL \(file)#\(index + 1)"), "\(result.stdout)")
            #expect(result.stdout.contains("\(header.rule) header:\(header.name)"), "\(result.stdout)")
        }
        #expect(result.stdout.contains("checked 4 pushes: 0 passed, 4 failed"), "\(result.stdout)")
        #expect(!result.stdout.contains("apple.background-priority"))
    }

    @Test func checkEscapesHeaderValues() async throws {
        let topic = "com.example\u{1B}[31m\u{9B}app\u{202E}"
        let collapseID = "\u{1B}]0;t\u{07}" + String(repeating: "x", count: 64)
        let line = P.captureLine(seq: 1, headers: [("apns-topic", topic), ("apns-push-type", "voip"), ("apns-collapse-id", collapseID)],
                                 payload: #"{"aps":{"alert":"x"}}"#)
        let file = try P.file(line + "\n")
        let result = try await P.run(["check", "--show-values", file])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(!result.stdout.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "\(result.stdout.debugDescription)")
        #expect(!Self.hasRawTerminalControls(result.stdout), "\(result.stdout.debugDescription)")
        #expect(result.stdout.contains(#"#1 (voip com.example\u001b[31m\u009bapp\u202e)"#), "\(result.stdout)")
        #expect(result.stdout.contains(#"apple.topic-suffix header:apns-topic: a voip push needs a topic ending in .voip value: com.example\u001b[31m\u009bapp\u202e"#),
                "\(result.stdout)")
        #expect(result.stdout.contains(#"apple.collapse-id header:apns-collapse-id: apns-collapse-id is 70 bytes; APNs allows 64 (BadCollapseId) value: \u001b]0;t\u0007xxxx"#),
                "\(result.stdout)")
    }

    @Test func fromTakesTheControlAPIsBaseURL() async throws {
        for url in ["http://127.0.0.1:2199/pushes", "http://127.0.0.1:2199/pushes/", "http://127.0.0.1:2199/prefix/pushes/wait"] {
            let result = try await P.run(["check", "--from", url])
            #expect(result.status == 2)
            #expect(result.stderr.hasPrefix(
                "Error: --from takes the control API's base URL, such as http://127.0.0.1:2199, not an endpoint: got '\(url)'"),
                    "\(result.stderr)")
            #expect(result.stderr.contains("\nUsage: push-inspect check"), "\(result.stderr)")
        }
        let scheme = try await P.run(["show", "--from", "ftp://x"])
        #expect(scheme.status == 2 && scheme.stderr.hasPrefix("Error: --from takes the control API's base URL"), "\(scheme.stderr)")
    }

    @Test func helpForAnUnknownSubcommandIsAUsageError() async throws {
        let unknown = try await P.run(["help", "nope"])
        #expect(unknown.status == 2)
        #expect(unknown.stdout.isEmpty)
        #expect(unknown.stderr.hasPrefix("Error: unknown subcommand 'nope'; expected check, show, stats, export or delivery\nUsage: "), "\(unknown.stderr)")
        let known = try await P.run(["help", "show"])
        #expect(known.status == 0 && known.stdout.hasPrefix("OVERVIEW: Show captured pushes"))
        let top = try await P.run(["help"])
        #expect(top.status == 0 && top.stdout.contains("SUBCOMMANDS:"))
    }

    @Test func showAndStats() async throws {
        let lines = [P.hermesLine(seq: 1, type: .approval),
                     P.captureLine(seq: 2, headers: [("apns-topic", "com.other")], payload: #"{"aps":{"alert":"x"}}"#,
                                   status: 400, reason: "BadDeviceToken")]
        let file = try P.file(lines.joined(separator: "\n") + "\n")
        let show = try await P.run(["show", file])
        #expect(show.status == 0)
        #expect(show.stdout.contains("2026-11-30 10:00:00") && show.stdout.contains("abab…abab"))
        #expect(show.stdout.contains("Approval needed — Hermes needs your approval") && show.stdout.contains("400 BadDeviceToken"))
        // A machine format carries the whole token and an RFC 3339 time, not the table's display forms.
        let showJSON = try await P.run(["show", "--json", file])
        guard case .array(let rows) = try JSONParser.parse(Array(showJSON.stdout.utf8)), rows.count == 2 else {
            Issue.record("show --json: \(showJSON.stdout)")
            return
        }
        #expect(rows.allSatisfy { $0.value(atKeys: ["device_token"]) == .string(String(repeating: "ab", count: 32)) }, "\(showJSON.stdout)")
        #expect(rows.allSatisfy { $0.value(atKeys: ["time"]) == "2026-11-30T10:00:00Z" }, "\(showJSON.stdout)")
        let stats = try await P.run(["stats", "--json", file])
        #expect(try JSONParser.parse(Array(stats.stdout.utf8)) == [
            "pushes": 2, "outcome": ["accepted": 1, "rejected": 1], "reason": ["BadDeviceToken": 1],
            "topic": ["com.example.app": 1, "com.other": 1], "push_type": ["alert": 1, "(none)": 1],
        ])
    }
}

/// Counts JUnit elements.
final class JUnitCounter: NSObject, XMLParserDelegate, @unchecked Sendable {
    // Unchecked: used by one parser on one thread.
    var testcases = 0
    var failures = 0
    var errors = 0
    var suiteTests = ""
    var suiteFailures = ""
    var suiteErrors = ""

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        switch name {
        case "testcase": testcases += 1
        case "failure": failures += 1
        case "error": errors += 1
        case "testsuite":
            suiteTests = attributes["tests"] ?? ""
            suiteFailures = attributes["failures"] ?? ""
            suiteErrors = attributes["errors"] ?? ""
        default: break
        }
    }
}

/// `--follow` on a capture file that is still being written.
@Suite(.timeLimit(.minutes(2)))
struct PushInspectFollowTests {
    typealias P = PushInspectProcess

    @Test func followReportsNewLinesAndSummarisesOnInterrupt() async throws {
        let capture = try P.file(P.hermesLine(seq: 1, type: .approval) + "\n")
        // --timeout 60 ends the follower even if this test run dies before interrupting it.
        let process = try BackgroundProcess(P.executable.path, ["check", "--profile", "hermes", "--follow", "--timeout", "60", capture])
        defer { if process.isRunning { _ = process.terminate(timeout: 5) } }

        // A line written in two parts, as a writer mid-flush leaves it: held back until whole.
        let leaky = P.hermesLine(seq: 2, type: .complete) {
            $0.replacingOccurrences(of: "Hermes finished the turn", with: "cat ~/.ssh/id_rsa")
        } + "\n"
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: capture))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(leaky.prefix(100).utf8))
        try await Task.sleep(for: .milliseconds(300))
        try handle.write(contentsOf: Data(leaky.dropFirst(100).utf8))
        try handle.close()

        let output = try await onThread { process.waitForOutput(containing: "hermes.leaks", timeout: 30) ?? process.standardOutput }
        #expect(output.contains("FAIL \(capture)#2"))
        #expect(output.contains("hermes.leaks[file-path] aps.alert.body"))

        #expect(try await onThread { process.waitUntilCatching([SIGINT]) }, "SIGINT never got its handler")
        process.signal(SIGINT)
        let status = try await onThread { process.wait(timeout: 30) }
        #expect(status == 1)
        #expect(process.standardOutput.contains("checked 2 pushes: 1 passed, 1 failed"))
    }

    /// A capture emptied under `--follow` (`: > pushes.jsonl` between test runs) is read
    /// again from its start, with a warning, as `tail -f` says "file truncated": the records
    /// written after it are checked, and none is read from the middle of a line.
    @Test func followStartsOverWhenTheCaptureIsTruncated() async throws {
        let capture = try P.file((1...3).map { P.hermesLine(seq: $0, type: .approval) }.joined(separator: "\n") + "\n")
        defer { try? FileManager.default.removeItem(atPath: capture) }
        let process = try BackgroundProcess(P.executable.path, ["check", "--profile", "hermes", "--follow", "--timeout", "60", capture])
        defer { if process.isRunning { _ = process.terminate(timeout: 5) } }
        // A failing push after the three passing ones shows they were all read before the file is emptied.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: capture))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data((P.hermesLine(seq: 9, type: .complete, editPayload: PushInspectCommandTests.leakyBody) + "\n").utf8))
        try handle.close()
        #expect(try await onThread { process.waitForOutput(containing: "FAIL \(capture)#9", timeout: 30) } != nil)

        #expect(truncate(capture, 0) == 0)
        // Two lines, then three more: past the old offset, where reading on would start mid-line.
        let leaky = { (seq: Int) in P.hermesLine(seq: seq, type: .complete, editPayload: PushInspectCommandTests.leakyBody) + "\n" }
        try (leaky(10) + P.hermesLine(seq: 11, type: .approval) + "\n").write(toFile: capture, atomically: false, encoding: .utf8)
        #expect(try await onThread { process.waitForOutput(containing: "FAIL \(capture)#10", timeout: 30) } != nil,
                "\(process.standardOutput)\(process.standardError)")
        let more = (12...13).map { P.hermesLine(seq: $0, type: .approval) + "\n" }.joined() + leaky(14)
        let appender = try FileHandle(forWritingTo: URL(fileURLWithPath: capture))
        try appender.seekToEnd()
        try appender.write(contentsOf: Data(more.utf8))
        try appender.close()
        #expect(try await onThread { process.waitForOutput(containing: "FAIL \(capture)#14", timeout: 30) } != nil,
                "\(process.standardOutput)\(process.standardError)")

        #expect(try await onThread { process.waitUntilCatching([SIGINT]) }, "SIGINT never got its handler")
        process.signal(SIGINT)
        let status = try await onThread { process.wait(timeout: 30) }
        #expect(status == 1, "failures, and no input error: \(process.standardError)")
        #expect(process.standardOutput.contains("checked 9 pushes: 6 passed, 3 failed"), "\(process.standardOutput)")
        #expect(process.standardError.contains("warning: \(capture): file-truncated: the file is now "), "\(process.standardError)")
        #expect(!process.standardError.contains("error:"), "\(process.standardError)")
    }

    /// The capture format's rules, whether the file is read or followed: what readers are
    /// told to skip (another version, an over-long line, a crash's partial last line) is a
    /// warning; a complete line that is not a record is an input error, exit 2.
    @Test(arguments: [false, true])
    func skippedLinesAreJudgedAlikeReadOrFollowed(follow: Bool) async throws {
        let good = P.hermesLine(seq: 1, type: .approval), later = P.hermesLine(seq: 2, type: .error)
        let future = good.replacingOccurrences(of: #"{"v":1,"#, with: #"{"v":3,"#)
        let otherKind = P.captureLine(seq: 3, headers: [], payload: "{}").replacingOccurrences(of: #"{"v":1,"#, with: #"{"v":2,"kind":"snapshot","#)
        let huge = #"{"v":1,"pad":""# + String(repeating: "x", count: 16 << 20) + #""}"#
        let cases: [(name: String, text: String, status: Int32, line: String, passed: Int)] = [
            ("garbage", good + "\n{not json}\n" + later + "\n", 2, "error: %@:2: malformed-line: not JSON", 2),
            ("future", good + "\n" + future + "\n" + later + "\n", 0, "warning: %@:2: skipped: unsupported-version", 2),
            ("other kind", good + "\n" + otherKind + "\n" + later + "\n", 0, "warning: %@:2: skipped: unsupported-kind", 2),
            ("huge", good + "\n" + huge + "\n" + later + "\n", 0, "warning: %@:2: skipped: line-too-long", 2),
            ("truncated", good + "\n" + later.prefix(60), 0, "warning: %@:2: skipped a truncated last line", 1),
            ("blank", good + "\n\n" + later + "\n", 2, "error: %@:2: malformed-line: an empty line", 2),
            ("seq 0", good + "\n" + later.replacingOccurrences(of: #""seq":2,"#, with: #""seq":0,"#) + "\n", 2,
             #"error: %@:2: malformed-line: "seq" must be 1 or more, found 0"#, 1),
        ]
        for (name, text, status, line, passed) in cases {
            let file = try P.file(text)
            defer { try? FileManager.default.removeItem(atPath: file) }
            let result = try await P.run(["check", "--profile", "hermes"] + (follow ? ["--follow", "--timeout", "1"] : []) + [file])
            #expect(result.status == status, "\(name): \(result.stderr)")
            #expect(result.stderr.contains(line.replacingOccurrences(of: "%@", with: file)), "\(name): \(result.stderr)")
            #expect(result.stdout.contains("checked \(passed) push"), "\(name): \(result.stdout)")
        }
    }

    /// `-` is standard input with `--follow` too: a file given as standard input is followed
    /// like any file, and a pipe is read as lines arrive until its writer closes it.
    @Test func followReadsStandardInput() async throws {
        let lines = P.hermesLine(seq: 1, type: .approval) + "\n" + P.hermesLine(seq: 2, type: .error) + "\n"
        let redirected = try await P.run(["check", "--profile", "hermes", "--follow", "--timeout", "1", "-"], input: lines)
        #expect(redirected.status == 0, "\(redirected.stderr)")
        #expect(redirected.stdout.contains("checked 2 pushes: 2 passed, 0 failed"), "\(redirected.stdout)")

        let file = try P.file(lines)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let piped = try await SpawnedProcess.runDetached(
            "/bin/sh", ["-c", "cat \"$1\" | \"$2\" show --follow -", "sh", file, P.executable.path], timeout: 60)
        #expect(piped.status == 0 && !piped.timedOut, "\(piped.stderr)")
        #expect(piped.stdout.contains("Approval needed") && piped.stdout.contains("Hermes hit an error"), "\(piped.stdout)")
    }

    /// Garbage is reported as it is read, and only so much of it: the first lines in full,
    /// the rest as a count, every one still an input error.
    @Test func skippedLinesAreShownUpToALimitAndCounted() async throws {
        let file = try P.file(P.hermesLine(seq: 1, type: .approval) + "\n" + String(repeating: "x\n", count: 5_000))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let result = try await P.run(["check", "--profile", "hermes", file])
        #expect(result.status == 2)
        let shown = result.stderr.split(separator: "\n").filter { $0.hasPrefix("error: \(file):") && $0.contains("malformed-line") }
        #expect(shown.count == 100, "\(result.stderr.prefix(500))")
        #expect(result.stderr.contains("error: \(file): and 4900 more skipped lines not shown (4900 of them damaged)"), "\(result.stderr.suffix(500))")
        #expect(result.stdout.contains("checked 1 push: 1 passed, 0 failed"))
    }

    /// Ctrl-C stops reading endless input that holds no record (and so never returned to the
    /// caller before): the summary comes out, and the run is not a pass.
    @Test(arguments: [false, true])
    func interruptStopsReadingEndlessGarbage(follow: Bool) async throws {
        let process = try BackgroundProcess(
            P.executable.path, ["check", "--profile", "hermes"] + (follow ? ["--follow", "--timeout", "60"] : []) + ["/dev/urandom"])
        defer { if process.isRunning { _ = process.terminate(timeout: 5) } }
        let reported = try await onThread { process.waitForError(containing: "/dev/urandom:1:", timeout: 30) }
        #expect(reported != nil, "skipped lines are reported as they are read")

        #expect(try await onThread { process.waitUntilCatching([SIGINT]) }, "SIGINT never got its handler")
        process.signal(SIGINT)
        let status = try await onThread { process.wait(timeout: 30) }
        #expect(status == 2, "\(process.standardError.suffix(500))")
        #expect(process.standardOutput.contains("checked 0 pushes"))
        if !follow { #expect(process.standardError.contains("error: /dev/urandom: interrupted (Ctrl-C) after")) }
    }

    /// A FIFO no one writes yet: following it waits for a writer without blocking, so
    /// `--timeout` ends it with a summary; read once, the open blocks, and Ctrl-C still ends it.
    @Test func aFIFOWithNoWriterIsFollowedUntilTheTimeoutAndInterruptible() async throws {
        let fifo = NSTemporaryDirectory() + "push-inspect-fifo-\(UUID().uuidString)"
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { try? FileManager.default.removeItem(atPath: fifo) }
        let followed = try await SpawnedProcess.runDetached(
            P.executable.path, ["check", "--profile", "hermes", "--follow", "--timeout", "1", fifo], timeout: 30)
        #expect(followed.status == 0 && !followed.timedOut, "\(followed.stderr)")
        #expect(followed.stdout.contains("checked 0 pushes"), "\(followed.stdout)")

        let process = try BackgroundProcess(P.executable.path, ["check", "--profile", "hermes", fifo])
        defer { if process.isRunning { _ = process.terminate(timeout: 5) } }
        // Signalled once its open of the FIFO waits for a writer (`wait_for_partner` in Linux's
        // fs/pipe.c) and SIGINT has its handler: earlier, Ctrl-C finds other work to stop.
        #expect(try await onThread { process.waitUntilAThreadSleeps(in: "wait_for_partner") }, "the FIFO was never opened")
        #expect(try await onThread { process.waitUntilCatching([SIGINT]) }, "SIGINT never got its handler")
        process.signal(SIGINT)
        let status = try await onThread { process.wait(timeout: 30) }
        #expect(status == 2)
        #expect(process.standardError.contains("error: interrupted while waiting for input"), "\(process.standardError)")
    }

    @Test func followStopsAfterTheQuietTimeout() async throws {
        let capture = try P.file(P.hermesLine(seq: 1, type: .approval) + "\n")
        let result = try await P.run(["check", "--profile", "hermes", "--follow", "--timeout", "1", capture])
        #expect(result.status == 0)
        #expect(result.stdout.contains("checked 1 push: 1 passed, 0 failed"))
    }
}
