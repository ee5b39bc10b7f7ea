import CLISupport
import Testing

@Suite struct CommandLineParserTests {
    let parser = CommandLineParser(
        command: "tool", overview: "Does a thing.", usage: "tool [--port N] [--topic ID]... [--no-tls]",
        options: [
            .value("port", "N", help: "Port to listen on."),
            .value("topic", "ID", help: "A topic.", repeatable: true),
            .flag("no-tls", help: "Cleartext."),
        ])

    private func run(_ arguments: [String]) throws -> ParsedArguments {
        guard case let .run(parsed) = try parser.parse(arguments) else { throw CommandLineError("not a run") }
        return parsed
    }

    @Test func parsesValuesFlagsRepeatsAndEqualsForms() throws {
        let parsed = try run(["--port", "8443", "--topic=a", "--topic", "b", "--no-tls"])
        #expect(parsed.value("port") == "8443")
        #expect(try parsed.integer("port", in: 0...65535) == 8443)
        #expect(parsed.all("topic") == ["a", "b"])
        #expect(parsed.has("no-tls"))
        #expect(!parsed.has("port"))
    }

    @Test func helpAndVersionWinOverEverythingElse() throws {
        guard case .help = try parser.parse(["--port", "1", "-h"]) else { Issue.record("expected help"); return }
        guard case .version = try parser.parse(["--version"]) else { Issue.record("expected version"); return }
        #expect(parser.helpText.hasPrefix("OVERVIEW: Does a thing.\n\nUSAGE: tool"))
        #expect(parser.helpText.contains("--topic <ID>"))
        #expect(parser.helpText.contains("(repeatable)"))
        #expect(parser.helpText.contains("-h, --help"))
    }

    @Test func usageErrorsSayWhatIsWrong() {
        #expect(throws: CommandLineError("unknown option '--prot'; did you mean --port?")) { try parser.parse(["--prot", "1"]) }
        #expect(throws: CommandLineError("--port needs a value (N)")) { try parser.parse(["--port"]) }
        #expect(throws: CommandLineError("--port may be given only once")) { try parser.parse(["--port", "1", "--port", "2"]) }
        #expect(throws: CommandLineError("--no-tls takes no value")) { try parser.parse(["--no-tls=yes"]) }
        #expect(throws: CommandLineError("unexpected argument 'extra'")) { try parser.parse(["extra"]) }
        #expect(throws: CommandLineError("--port expects an integer from 0 to 65535, got '70000'")) {
            try run(["--port", "70000"]).integer("port", in: 0...65535)
        }
        #expect(parser.errorText(CommandLineError("boom")) == "Error: boom\nUsage: tool [--port N] [--topic ID]... [--no-tls]\nSee 'tool --help'.\n")
    }

    private func run(_ arguments: [String], environment: [String: String]) throws -> ParsedArguments {
        var parser = parser
        parser.environmentPrefix = "TOOL"
        guard case let .run(parsed) = try parser.parse(arguments, environment: environment) else { throw CommandLineError("not a run") }
        return parsed
    }

    @Test func optionsLeftOutComeFromTheEnvironmentAndTheCommandLineWins() throws {
        let environment = ["TOOL_PORT": "8443", "TOOL_TOPIC": "a, b,,c", "TOOL_NO_TLS": "yes"]
        let fromEnvironment = try run([], environment: environment)
        #expect(try fromEnvironment.integer("port", in: 0...65535) == 8443)
        #expect(fromEnvironment.all("topic") == ["a", "b", "c"])
        #expect(fromEnvironment.has("no-tls"))
        #expect(fromEnvironment.origin(of: "port") == "TOOL_PORT")

        let overridden = try run(["--port", "9000", "--topic", "d"], environment: environment)
        #expect(overridden.value("port") == "9000")
        #expect(overridden.origin(of: "port") == "--port")
        #expect(overridden.all("topic") == ["d"], "a repeatable option on the command line replaces the variable's list")
    }

    @Test func anEmptyVariableIsUnsetAndAFlagCanBeTurnedOff() throws {
        let parsed = try run([], environment: ["TOOL_PORT": "", "TOOL_NO_TLS": "false"])
        #expect(parsed.value("port") == nil)
        #expect(!parsed.has("no-tls"))
        #expect(try run([], environment: ["TOOL_NO_TLS": "0"]).has("no-tls") == false)
    }

    @Test func environmentErrorsNameTheVariable() throws {
        #expect(throws: CommandLineError("TOOL_NO_TLS expects 1, true or yes (on) or 0, false or no (off), got 'maybe'")) {
            try run([], environment: ["TOOL_NO_TLS": "maybe"])
        }
        #expect(throws: CommandLineError("TOOL_PORT expects an integer from 0 to 65535, got 'x'")) {
            try run([], environment: ["TOOL_PORT": "x"]).integer("port", in: 0...65535)
        }
    }

    @Test func withoutAPrefixTheEnvironmentIsNotReadAndHelpSaysNothingOfIt() throws {
        guard case let .run(parsed) = try parser.parse([], environment: ["TOOL_PORT": "1"]) else { Issue.record("not a run"); return }
        #expect(parsed.value("port") == nil)
        #expect(!parser.helpText.contains("environment"))
        var prefixed = parser
        prefixed.environmentPrefix = "TOOL"
        #expect(prefixed.helpText.contains("as TOOL_<OPTION> (TOOL_PORT for --port); the command line wins."))
    }
}

@Suite struct LoggerTests {
    @Test func linesCarryLevelLabelSortedMetadataAndRespectTheLevel() {
        let sink = LogSink.memory()
        var logger = Logger(label: "apns-mock", sink: sink)
        logger[metadataKey: "env"] = "sandbox"
        logger.info("push accepted", metadata: ["push.topic": "com.example.app"])
        logger.debug("dropped: below info")
        logger.logLevel = .debug
        logger.debug("kept")
        let lines = sink.recorded
        #expect(lines.count == 2)
        #expect(lines[0].hasSuffix(" info apns-mock: env=sandbox push.topic=com.example.app push accepted\n"))
        #expect(lines[1].hasSuffix(" debug apns-mock: env=sandbox kept\n"))
        #expect(Logger.Level.warning > .info && Logger.Level(rawValue: "error") == .error)
    }

    @Test func fieldsKeepTheirOrderAfterTheLoggersOwnMetadata() {
        let sink = LogSink.memory()
        var logger = Logger(label: "apns-mock", sink: sink)
        logger[metadataKey: "env"] = "sandbox"
        logger.log(level: .info, "push rejected", fields: [("push.status", "400"), ("push.apns-id", "x")])
        logger.log(level: .debug, "dropped", fields: [("a", "b")])
        #expect(sink.recorded.count == 1)
        #expect(sink.recorded.first?.hasSuffix(" info apns-mock: env=sandbox push.status=400 push.apns-id=x push rejected\n") == true)
    }

    @Test func aLineBuiltInPlaceHasTheSameLayoutAndExactNumbers() {
        let sink = LogSink.memory()
        var logger = Logger(label: "apns-mock", sink: sink)
        logger[metadataKey: "env"] = "sandbox"
        logger.log(level: .info, "push accepted") { line in
            line.field("push.status", 200)
            line.field("push.zero", 0)
            line.field("push.negative", -42)
            line.field("push.max", UInt64.max)
            line.field("push.topic", "com.example.app")
        }
        logger.log(level: .debug, "dropped") { line in line.field("a", "b") }
        #expect(sink.recorded.count == 1)
        let expected = " info apns-mock: env=sandbox push.status=200 push.zero=0 push.negative=-42"
            + " push.max=18446744073709551615 push.topic=com.example.app push accepted\n"
        #expect(sink.recorded.first?.hasSuffix(expected) == true, "\(sink.recorded)")
        // Lines in the same second share the cached timestamp; it is the layout's first field.
        #expect(sink.recorded.first?.prefix(24).contains("T") == true)
    }
}
