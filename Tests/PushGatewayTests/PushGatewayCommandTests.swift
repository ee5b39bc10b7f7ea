import CLISupport
import Foundation
import MockAPNs
import PushTestSupport
import Testing

/// The `push-gateway` command over TLS, driven by a python client that builds requests
/// exactly as the public plugin does, forwarding to the mock.
@Suite(.timeLimit(.minutes(3)))
struct PushGatewayCommandTests {
    /// The built `push-gateway`, in the build folder that holds the test bundle.
    static var executable: URL {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [bundle, bundle.deletingLastPathComponent(), Bundle.main.bundleURL]
            .map { $0.appendingPathComponent("push-gateway") }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }

    static let environment = [
        "PUSH_GATEWAY_HMAC_SECRET": GatewayFixture.hmacSecret, "PUSH_GATEWAY_CAPABILITY_KEY": GatewayFixture.capabilityKey,
    ]

    static func arguments(for mock: MockAPNsServer) -> [String] {
        let certs = GatewayFixture.certs
        return ["--port", "0", "--topic", GatewayFixture.topic, "--auth-key", "ABC123DEFG:TEAM000001:\(certs)/AuthKey_ABC123DEFG.p8",
                "--apns-production", mock.productionURL, "--apns-sandbox", mock.sandboxURL, "--apns-ca", "\(certs)/ca.pem",
                "--tls-cert", "\(certs)/server.pem", "--tls-key", "\(certs)/server.key"]
    }

    /// A running `push-gateway` and the URL its banner printed.
    final class RunningGateway: Sendable {
        let child: BackgroundProcess
        let url: String

        init(arguments: [String], environment: [String: String]) throws {
            child = try BackgroundProcess(PushGatewayCommandTests.executable.path, arguments, environment: environment)
            let banner = child.waitForOutput(containing: "sandbox", timeout: 20) ?? child.standardOutput
            url = banner.split(separator: "\n").compactMap { line -> String? in
                let parts = line.split(separator: " ", omittingEmptySubsequences: true)
                return parts.count == 2 && parts[0] == "listening" ? String(parts[1]) : nil
            }.first ?? ""
        }

        /// Stops it with SIGTERM; returns the exit status and what it logged.
        func stop() -> (status: Int32, log: String) {
            let status = child.terminate()
            return (status, child.standardError)
        }
    }

    static func run(_ arguments: [String], environment: [String: String] = environment, executable: URL = executable)
        throws -> (status: Int32, output: String, errors: String) {
        let result = try ChildProcess.run(executable.path, arguments, environment: environment)
        return (result.status, result.stdout, result.stderr)
    }

    @Test(arguments: ["hmac", "capability"])
    func thePluginsOwnRequestsSucceedOverHTTP1AndTLS(mode: String) async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: GatewayFixture.certs)
        defer { mock.stop() }
        let gateway = try await onThread { try RunningGateway(arguments: Self.arguments(for: mock), environment: Self.environment) }
        #expect(gateway.url.hasPrefix("https://127.0.0.1:"))
        let plugin = try await onThread {
            try ProcessRunner.python(PluginClient.script, arguments: [gateway.url, mode, "\(GatewayFixture.certs)/ca.pem"],
                                     environment: ["HERMES_PUSH_SECRET": GatewayFixture.hmacSecret])
        }
        let captured = await mock.capture.wait(for: .all, count: 4, timeout: .seconds(10))
        let stopped = try await onThread { gateway.stop() }

        #expect(plugin.status == 0, "\(plugin.output)")
        let lines = plugin.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(plugin.output)")
        for line in lines { #expect(line.contains(#""status": 200"#), "\(line)") }
        #expect(captured.records.count == 4)
        #expect(captured.records.allSatisfy { $0.outcome.status == 200 })
        #expect(stopped.status == 0, "SIGTERM stops it cleanly")
        #expect(stopped.log.contains("gateway.status=200"))
        #expect(!stopped.log.contains(GatewayFixture.deviceToken) && !stopped.log.contains("Approval needed"))
        if mode == "capability" {
            #expect(stopped.log.contains("gateway.outcome=invalid_capability"), "the stale capability was refused first")
        }
    }

    /// A container is configured through its environment: every option as `PUSH_GATEWAY_*`,
    /// and the `.p8` itself in `PUSH_GATEWAY_AUTH_KEY_P8`, never in a flag or an image layer.
    @Test func everySettingAndTheKeyItselfMayComeFromTheEnvironment() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: GatewayFixture.certs)
        defer { mock.stop() }
        let certs = GatewayFixture.certs
        let p8 = try String(contentsOfFile: "\(certs)/AuthKey_ABC123DEFG.p8", encoding: .utf8)
        let environment = Self.environment.merging([
            "PUSH_GATEWAY_PORT": "0", "PUSH_GATEWAY_TOPIC": GatewayFixture.topic, "PUSH_GATEWAY_AUTH_KEY": "ABC123DEFG:TEAM000001",
            "PUSH_GATEWAY_AUTH_KEY_P8": p8, "PUSH_GATEWAY_APNS_PRODUCTION": mock.productionURL,
            "PUSH_GATEWAY_APNS_SANDBOX": mock.sandboxURL, "PUSH_GATEWAY_APNS_CA": "\(certs)/ca.pem",
            "PUSH_GATEWAY_AUTH_MODES": "hmac", "PUSH_GATEWAY_TLS_CERT": "", "PUSH_GATEWAY_LOG_LEVEL": "info",
        ]) { $1 }
        let gateway = try await onThread { try RunningGateway(arguments: [], environment: environment) }
        #expect(gateway.url.hasPrefix("http://127.0.0.1:"), "an empty PUSH_GATEWAY_TLS_CERT is unset: cleartext")
        let plugin = try await onThread {
            try ProcessRunner.python(PluginClient.script, arguments: [gateway.url, "hmac", "\(certs)/ca.pem"],
                                     environment: ["HERMES_PUSH_SECRET": GatewayFixture.hmacSecret])
        }
        let captured = await mock.capture.wait(for: .all, count: 4, timeout: .seconds(10))
        let stopped = try await onThread { gateway.stop() }
        #expect(plugin.status == 0, "\(plugin.output)")
        #expect(captured.records.count == 4 && captured.records.allSatisfy { $0.outcome.status == 200 },
                "the mock verified tokens signed with the key from the environment")
        #expect(stopped.status == 0, "\(stopped.log)")
    }

    /// A container started without what the gateway needs stops at once, naming the variable.
    @Test func aMissingSettingOrSecretNamesItsVariable() async throws {
        let key = "ABC123DEFG:TEAM000001:\(GatewayFixture.certs)/AuthKey_ABC123DEFG.p8"
        let cases: [([String: String], String)] = [
            ([:], "PUSH_GATEWAY_TOPIC"),
            (["PUSH_GATEWAY_TOPIC": "t"], "PUSH_GATEWAY_AUTH_KEY"),
            (["PUSH_GATEWAY_TOPIC": "t", "PUSH_GATEWAY_AUTH_KEY": key], "PUSH_GATEWAY_HMAC_SECRET"),
            (["PUSH_GATEWAY_TOPIC": "t", "PUSH_GATEWAY_AUTH_KEY": "ABC123DEFG:TEAM000001", "PUSH_GATEWAY_AUTH_MODES": "hmac",
              "PUSH_GATEWAY_HMAC_SECRET": "s"], "export PUSH_GATEWAY_AUTH_KEY_P8 or PUSH_GATEWAY_AUTH_KEY_P8_FILE"),
            (["PUSH_GATEWAY_TOPIC": "t", "PUSH_GATEWAY_AUTH_KEY": key, "PUSH_GATEWAY_AUTH_MODES": "hmac",
              "PUSH_GATEWAY_HMAC_SECRET": "s", "PUSH_GATEWAY_AUTH_KEY_P8": "x"], "the .p8 is given twice"),
            (["PUSH_GATEWAY_TOPIC": "t", "PUSH_GATEWAY_AUTH_KEY": "ABC123DEFG:TEAM000001", "PUSH_GATEWAY_AUTH_MODES": "hmac",
              "PUSH_GATEWAY_HMAC_SECRET": "s", "PUSH_GATEWAY_AUTH_KEY_P8": "not a key"], "auth key: PUSH_GATEWAY_AUTH_KEY_P8: "),
            (["PUSH_GATEWAY_TOPIC": "t", "PUSH_GATEWAY_AUTH_KEY": key, "PUSH_GATEWAY_PORT": "http"],
             "PUSH_GATEWAY_PORT expects an integer from 0 to 65535, got 'http'"),
        ]
        for (environment, message) in cases {
            let result = try await onThread { try Self.run([], environment: environment) }
            #expect(result.status == 2, "\(environment.keys.sorted()): \(result.errors)")
            #expect(result.errors.hasPrefix("Error: ") && result.errors.contains(message), "\(environment.keys.sorted()): \(result.errors)")
        }
    }

    /// A SIGTERM sent while the gateway is still starting is held until it is up, then stops
    /// it cleanly (status 0, "stopped"), instead of killing it or being ignored.
    @Test func aSIGTERMDuringStartupStopsItCleanly() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: GatewayFixture.certs)
        defer { mock.stop() }
        let ended = try await onThread {
            try BackgroundProcess.stopWhileStarting(Self.executable.path, Self.arguments(for: mock), environment: Self.environment)
        }
        #expect(ended.held, "the gateway never held SIGINT and SIGTERM: \(ended.log)")
        #expect(ended.status == 0, "\(ended.output)\(ended.log)")
        #expect(ended.output.contains("listening"), "it came up before stopping: \(ended.output)")
        #expect(ended.log.contains("stopped"), "\(ended.log)")
    }

    /// A banner that cannot be written (standard output on a full disk) fails the start,
    /// exit 1 with a log line saying why, instead of crashing in the write.
    @Test func aBannerThatCannotBeWrittenFailsTheStartWithoutACrash() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: GatewayFixture.certs)
        defer { mock.stop() }
        let result = try await SpawnedProcess.runDetached(Self.executable.path, Self.arguments(for: mock), full: .output,
                                                          environment: Self.environment, timeout: 30)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("cannot start: cannot write the banner to standard output: No space left on device"),
                "\(result.stderr)")
    }

    @Test func helpVersionAndUsageErrors() async throws {
        let help = try await onThread { try Self.run(["--help"]) }
        #expect(help.status == 0 && help.output.hasPrefix("OVERVIEW:") && help.output.contains("PUSH_GATEWAY_HMAC_SECRET"))
        for flag in ["--config", "--host", "--port", "--tls-cert", "--tls-key", "--auth-key", "--topic", "--apns-production",
                     "--apns-sandbox", "--apns-ca", "--auth-modes", "--apns-timeout-ms", "--threads"] {
            #expect(help.output.contains(flag), "\(flag) is documented")
        }
        // The usage line, which scripts' authors copy, names every option the help lists.
        let lines = help.output.split(separator: "\n")
        let usage = lines.first { $0.hasPrefix("USAGE:") } ?? ""
        let options = lines.compactMap { line -> Substring? in
            guard line.hasPrefix("  --") else { return nil }
            return line.dropFirst(2).prefix { $0 != " " }
        }.filter { $0 != "--version" }
        #expect(options.count >= 15)
        for option in options { #expect(usage.contains("[\(option) ") || usage.contains(" \(option) "), "usage lacks \(option)") }
        let version = try await onThread { try Self.run(["--version"]) }
        #expect(version.status == 0 && version.output == SuiteVersion.current + "\n")

        let key = "ABC123DEFG:TEAM000001:\(GatewayFixture.certs)/AuthKey_ABC123DEFG.p8"
        let cases: [([String], [String: String], String)] = [
            (["--hmac-secret", "s", "--topic", "t", "--auth-key", key], Self.environment, "unknown option '--hmac-secret'"),
            (["--auth-key", key], Self.environment, "--topic"),
            (["--topic", "t"], Self.environment, "--auth-key"),
            (["--topic", "t", "--auth-key", key], [:], "PUSH_GATEWAY_HMAC_SECRET"),
            (["--topic", "t", "--auth-key", key, "--auth-modes", "jwt"], Self.environment, "unknown mode"),
            (["--topic", "t", "--auth-key", "ABC123DEFG:TEAM000001:/nonexistent.p8"], Self.environment, "nonexistent.p8"),
            (["--topic", "t", "--auth-key", key, "--port", "70000"], Self.environment, "--port"),
            (["--topic", "t", "--auth-key", key, "--threads", "0"], Self.environment, "--threads"),
            (["--topic", "t", "--auth-key", key, "--apns-timeout-ms", "60001"], Self.environment, "--apns-timeout-ms"),
        ]
        for (arguments, environment, message) in cases {
            let result = try await onThread { try Self.run(arguments, environment: environment) }
            #expect(result.status == 2, "\(arguments): \(result.errors)")
            #expect(result.errors.hasPrefix("Error: ") && result.errors.contains(message), "\(arguments): \(result.errors)")
            #expect(result.errors.contains("See 'push-gateway --help'."))
        }
    }
}
