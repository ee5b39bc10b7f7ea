import CLISupport
import Foundation
import PushRules
import StrictJSON

/// `push-inspect check`: every push against the rules; exit 0 when all pass, 1 when any
/// rule fails, 2 on a usage or input error.
enum CheckCommand {
    static let parser = CommandLineParser(
        command: "push-inspect check",
        overview: "Check pushes against rule profiles and policy files.",
        usage: "push-inspect check [--profile NAME]... [--policy FILE]... [--no-apple] [--allow-rejected] [--json] [--junit FILE] "
            + "[--quiet] [--show-values] [--now SECONDS] [FILTERS] [FILE... | --from URL [--wait N --timeout S]] [--follow]",
        options: [
            .value("profile", "NAME", help: "Built-in rules: \(BuiltInProfile.allCases.map(\.rawValue).joined(separator: ", ")).",
                   repeatable: true),
            .value("policy", "FILE", help: "A policy file (docs/push-inspect.md).", repeatable: true),
            .flag("no-apple", help: "Leave out the apple profile, which is on by default."),
            .flag("allow-rejected", help: "Do not fail pushes APNs rejected (rule \(RejectedPushRule.id))."),
            .value("junit", "FILE", help: "Write a JUnit XML report: one test case per push per rule."),
            .flag("show-values", help: "Print the offending values (they may be what must not leak)."),
            .value("now", "SECONDS", help: "The time expirations are compared with for pushes without one (default: now)."),
        ] + InspectOptions.followableInput,
        acceptsPositional: true)

    static func run(_ arguments: ParsedArguments, terminal: Terminal) async throws(CommandLineError) -> Int32 {
        var profiles: [BuiltInProfile] = arguments.has("no-apple") ? [] : [.apple]
        for name in arguments.all("profile") {
            guard let profile = BuiltInProfile(rawValue: name) else {
                throw CommandLineError(
                    "unknown profile '\(name)'; expected one of \(BuiltInProfile.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            profiles.append(profile)
        }
        var now: Int64?
        if let text = arguments.value("now") {
            guard let value = Int64(text) else { throw CommandLineError("--now expects UNIX seconds, got '\(text)'") }
            now = value
        }
        var policies: [Policy] = []
        var policyFiles: [String: String] = [:]
        for file in arguments.all("policy") {
            do {
                let policy = try Policy(json: SinglePayload.contents(of: file))
                // Two policies of one name would share rule ids: their counts and JUnit test
                // cases would merge, and a finding would not say which file it came from.
                if let other = policyFiles[policy.name] {
                    let unnamed = policy.name == Policy.defaultName ? " (the name of a policy that gives none)" : ""
                    throw PolicyError("name", "\"\(policy.name)\"\(unnamed) is also the name of the policy in \(other); "
                        + "give each policy file its own \"name\"")
                }
                policyFiles[policy.name] = file
                policies.append(policy)
            } catch let error as PolicyError {
                terminal.err("error: \(file): \(error)")
                return 2
            } catch {
                terminal.err("error: \(error)")
                return 2
            }
        }
        if profiles.isEmpty, policies.isEmpty { throw CommandLineError("no rules: give --profile or --policy (or drop --no-apple)") }
        var feed = try InspectOptions.feed(arguments, follows: true, terminal: terminal)
        if let path = arguments.value("junit") {
            do {
                try ReportFile.checkNotAnInput(path, inputs: (feed.from == nil ? feed.files : []) + arguments.all("policy"))
            } catch {
                throw CommandLineError("--junit: \(error.message)")
            }
        }
        var rules = RuleSet(profiles: profiles, policies: policies, now: now)
        let judgesOutcome = !arguments.has("allow-rejected")
        if judgesOutcome { rules = RuleSet(rules: [RejectedPushRule.rule] + rules.rules) }
        var run = CheckRun(
            rules: rules, judgesOutcome: judgesOutcome, json: arguments.has("json"), quiet: arguments.has("quiet"),
            showValues: arguments.has("show-values"),
            junit: arguments.value("junit").map { _ in JUnitReport(suiteName: "push-inspect", showsValues: arguments.has("show-values")) },
            terminal: terminal, flushesEachPush: feed.follow)
        run.begin()
        await feed.run { run.check($0) }
        run.finish(inputErrors: feed.inputErrors, waitUnsatisfied: feed.waitUnsatisfied)
        if let path = arguments.value("junit"), var report = run.junit {
            // The exit status says the input was bad; CI pages show the report, so it says so too.
            for message in feed.inputErrorMessages {
                report.addError(className: "push-inspect.input", name: "input", message: message)
            }
            let unlisted = feed.inputErrors - feed.inputErrorMessages.count
            if unlisted > 0 {
                report.addError(className: "push-inspect.input", name: "input",
                                message: "and \(unlisted) more input error\(unlisted == 1 ? "" : "s") (see standard error)")
            }
            if let shortfall = feed.waitShortfall {
                report.addFailure(className: "push-inspect.input", name: "wait", message: shortfall)
            }
            do {
                try ReportFile.write(Array(report.xml().utf8), to: path)
            } catch {
                terminal.err("error: \(error.message)")
                return 2
            }
        }
        if feed.inputErrors > 0 { return 2 }
        return run.failed > 0 || feed.waitUnsatisfied ? 1 : 0
    }
}

/// The state of one check run: counts, and the reports being written.
struct CheckRun {
    let rules: RuleSet
    /// Whether rejected pushes fail (``RejectedPushRule``); then an injected answer is
    /// reported as such.
    let judgesOutcome: Bool
    let json: Bool
    let quiet: Bool
    let showValues: Bool
    var junit: JUnitReport?
    let terminal: Terminal
    /// Set when following a file: a person is watching, so each failure shows at once.
    let flushesEachPush: Bool
    let output = OutputBuffer()
    private(set) var checked = 0
    private(set) var failed = 0
    private(set) var findingCount = 0
    private var findingsByRule: [String: Int] = [:]
    /// The pushes whose answer a fault rule injected, for `--json`'s `injected`.
    private var injectedMembers: [JSONValue] = []
    private(set) var injectedCount = 0

    init(rules: RuleSet, judgesOutcome: Bool, json: Bool, quiet: Bool, showValues: Bool, junit: JUnitReport?,
         terminal: Terminal, flushesEachPush: Bool) {
        self.flushesEachPush = flushesEachPush
        self.rules = rules
        self.judgesOutcome = judgesOutcome
        self.json = json
        self.quiet = quiet
        self.showValues = showValues
        self.junit = junit
        self.terminal = terminal
    }

    func begin() {
        guard json, !quiet else { return }
        var text: [UInt8] = [UInt8(ascii: "{")]
        Self.writeKey(CheckReportKey.rules, into: &text)
        JSONWriter.write(.array(rules.ruleIDs.map { .string($0) }), into: &text)
        text.append(UInt8(ascii: ","))
        Self.writeKey(CheckReportKey.failures, into: &text)
        text.append(UInt8(ascii: "["))
        output.write(bytes: text)
    }

    /// `"key":`, for the members written as the check goes.
    private static func writeKey(_ key: String, into text: inout [UInt8]) {
        JSONWriter.writeString(key, into: &text)
        text.append(UInt8(ascii: ":"))
    }

    mutating func check(_ push: PushInput) {
        let result = rules.check(push, recordApplied: junit != nil)
        checked += 1
        junit?.add(result)
        if checked % 100_000 == 0, !quiet { terminal.progress("checked \(checked) pushes, \(failed) failed") }
        if judgesOutcome, let answer = push.result, answer.injected, !answer.isAccepted { reportInjected(push, answer) }
        guard !result.passed else { return }
        failed += 1
        findingCount += result.findings.count
        for finding in result.findings { findingsByRule[finding.rule, default: 0] += 1 }
        guard !quiet else { return }
        if json {
            var members = PushIdentity.jsonMembers(push)
            members[CheckReportKey.findings] = .array(result.findings.map { $0.jsonValue(showValues: showValues) })
            var text: [UInt8] = failed > 1 ? [UInt8(ascii: ",")] : []
            text += TerminalText.jsonBytes(.object(members))
            output.write(bytes: text)
            if flushesEachPush { output.flush() }
            return
        }
        var text = "\(terminal.red("FAIL")) \(push.source)"
        // The sender's headers, escaped as every text from a push is (TerminalText).
        let context = [push.headers.pushType, push.headers.topic].compactMap { $0 }.map { TerminalText.escaped($0) }
        if !context.isEmpty { text += terminal.dim(" (\(context.joined(separator: " ")))") }
        text += PushIdentity.text(push) + "\n"
        for finding in result.findings {
            text += "  \(finding.rule)\(finding.detector.map { "[\($0)]" } ?? "") \(finding.path): \(finding.message)"
            if showValues, let shown = finding.escapedValue {
                text += " \(terminal.dim("value:")) \(shown)"
            }
            text += "\n"
        }
        output.write(text)
        if flushesEachPush { output.flush() }
    }

    /// An answer a fault rule decided: not the sender's failure, so no finding, but said,
    /// since the push was not delivered.
    private mutating func reportInjected(_ push: PushInput, _ answer: PushResult) {
        injectedCount += 1
        let rules = answer.faults.isEmpty ? "" : " (\(answer.faults.joined(separator: "; ")))"
        let message = "answered \(answer.summary) by the mock's fault rules\(rules): injected, not the sender's failure"
        junit?.addSkipped(className: JUnitReport.className(of: push.source), name: RejectedPushRule.id, message: message)
        guard !quiet else { return }
        if json {
            var members = PushIdentity.jsonMembers(push)
            members["message"] = .string(message)
            injectedMembers.append(.object(members))
            return
        }
        var text = "\(terminal.dim("INJECTED")) \(push.source)" + PushIdentity.text(push) + "\n"
        text += "  \(RejectedPushRule.id): \(TerminalText.escaped(message))\n"
        output.write(text)
        if flushesEachPush { output.flush() }
    }

    func finish(inputErrors: Int, waitUnsatisfied: Bool) {
        terminal.endProgress()
        guard !quiet else { return }
        if json {
            var text: [UInt8] = [UInt8(ascii: "]"), UInt8(ascii: ",")]
            Self.writeKey(CheckReportKey.injected, into: &text)
            text += TerminalText.jsonBytes(.array(injectedMembers))
            let counts: [(String, Int)] = [
                (CheckReportKey.pushes, checked), (CheckReportKey.passed, checked - failed), (CheckReportKey.failed, failed),
                (CheckReportKey.findings, findingCount), (CheckReportKey.inputErrors, inputErrors),
            ]
            for (key, count) in counts {
                text.append(UInt8(ascii: ","))
                Self.writeKey(key, into: &text)
                text.append(contentsOf: String(count).utf8)
            }
            text.append(UInt8(ascii: ","))
            Self.writeKey(CheckReportKey.waitSatisfied, into: &text)
            text.append(contentsOf: (waitUnsatisfied ? "false}\n" : "true}\n").utf8)
            output.write(bytes: text)
        } else {
            if !findingsByRule.isEmpty {
                output.write("\nfindings by rule:\n")
                for (rule, count) in findingsByRule.sorted(by: { $0.key < $1.key }) { output.write("  \(rule): \(count)\n") }
            }
            // Input errors and a short wait are in the summary too: "0 failed" in green
            // over a file that could not be read would read as a pass.
            let summary = "checked \(checked) push\(checked == 1 ? "" : "es"): \(checked - failed) passed, \(failed) failed"
                + (findingCount > 0 ? " (\(findingCount) finding\(findingCount == 1 ? "" : "s"))" : "")
                + (injectedCount > 0 ? "; \(injectedCount) answer\(injectedCount == 1 ? "" : "s") injected by fault rules" : "")
                + (inputErrors > 0 ? "; \(inputErrors) input error\(inputErrors == 1 ? "" : "s")" : "")
                + (waitUnsatisfied ? "; fewer pushes than --wait asked for" : "")
            let bad = failed > 0 || inputErrors > 0 || waitUnsatisfied
            output.write((bad ? terminal.red(summary) : terminal.green(summary)) + "\n")
        }
        output.flush()
    }
}
