import APNsClient
import Foundation
import GatewayConformance
import MockAPNs
import PushGateway
import Synchronization
import PushTestSupport
import StrictJSON
import Testing

/// Our gateway passes the conformance suite, in both auth modes, with five simulated hours
/// for the provider-token check; and the suite does fail a gateway that breaks the contract.
@Suite(.timeLimit(.minutes(3)))
struct GatewayConformanceTests {
    /// Wall time that tests move forward; shared by the mock and the gateway's token minting.
    final class SimulatedClock: Sendable {
        private let offset = Mutex<TimeInterval>(0)
        var now: Date { Date().addingTimeInterval(offset.withLock { $0 }) }
        func advance(_ duration: Duration) {
            offset.withLock { $0 += Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18 }
        }
    }

    struct Running {
        let mock: MockAPNsServer
        let gateway: PushGatewayServer
        let clock: SimulatedClock
    }

    /// - Parameter rewrite: changes what APNs answered before the gateway maps it.
    static func start(modes: Set<GatewayAuthMode> = Set(GatewayAuthMode.allCases), secrets: GatewaySecrets = GatewayFixture.secrets,
                      wrongTopic: Bool = false, rewrite: (@Sendable (APNsDeliveryResult) -> APNsDeliveryResult)? = nil) throws -> Running {
        let clock = SimulatedClock()
        let mock = try MockAPNsServer.startForTesting(certsDirectory: GatewayFixture.certs, now: { clock.now })
        var configuration = GatewayFixture.configuration(modes: modes)
        configuration.productionURL = mock.productionURL
        configuration.sandboxURL = mock.sandboxURL
        configuration.apnsCAPath = mock.trustRootsPath
        if wrongTopic { configuration.topic = "com.example.app.other" }
        let client = try APNsClientDelivery(configuration: configuration, now: { clock.now }, adjust: { client in
            client.retryPolicy.initialBackoff = .milliseconds(5)
            client.retryPolicy.maximumBackoff = .milliseconds(20)
        })
        let delivery: any APNsDelivering = rewrite.map { RewritingDelivery(base: client, rewrite: $0) } ?? client
        let gateway = try GatewayFixture.start(configuration, secrets: secrets, delivery: delivery,
                                               wallClock: { Int64(clock.now.timeIntervalSince1970) })
        return Running(mock: mock, gateway: gateway, clock: clock)
    }

    /// - Parameter gatewayURL: judges this gateway (a proxy in front of ours) instead of ours.
    static func suite(_ running: Running, credentials: ConformanceConfiguration.Credentials,
                      gatewayURL: String? = nil) -> GatewayConformanceSuite {
        var configuration = ConformanceConfiguration(gatewayURL: (gatewayURL ?? running.gateway.url) + "/push",
                                                     mockControlURL: running.mock.controlURL, credentials: credentials)
        configuration.topic = GatewayFixture.topic
        let clock = running.clock
        configuration.advanceClock = { clock.advance($0) }
        return GatewayConformanceSuite(configuration: configuration)
    }

    @Test(arguments: ["hmac", "capability"])
    func ourGatewayPassesEveryCheck(mode: String) async throws {
        let running = try Self.start()
        let credentials: ConformanceConfiguration.Credentials = mode == "hmac"
            ? .hmac(secret: Array(GatewayFixture.hmacSecret.utf8)) : .capability
        let results = await Self.suite(running, credentials: credentials).run()
        await running.gateway.shutdown()
        running.mock.stop()

        let table = ConformanceReport.table(results)
        #expect(results.map(\.number) == [1, 2, 3, 4, 5, 6])
        #expect(results.allSatisfy { $0.passed }, "\(table)")
        #expect(table.contains("all 6 checks passed"))
        let simulated = try #require(results.last?.details.first { $0.contains("provider token(s)") })
        #expect(simulated.hasPrefix("31 pushes"), "\(simulated)")
        let junit = ConformanceReport.junit(results)
        #expect(junit.contains(#"tests="6" failures="0""#))
    }

    @Test func aGatewayThatBreaksTheContractFails() async throws {
        // Wrong bundle id (check 1) and a shared secret the plugin does not have (every hmac push is refused).
        let running = try Self.start(modes: [.hmac], secrets: GatewaySecrets(hmacSecret: Array("another-secret".utf8)), wrongTopic: true)
        let results = await Self.suite(running, credentials: .hmac(secret: Array(GatewayFixture.hmacSecret.utf8))).run([1, 2])
        await running.gateway.shutdown()
        running.mock.stop()
        #expect(results.map(\.passed) == [false, false], "\(ConformanceReport.table(results))")
        #expect(results[0].details.contains { $0.contains("answered 403") })

        let junit = ConformanceReport.junit(results)
        #expect(junit.contains(#"failures="2""#) && junit.contains("<failure message="))
    }

    /// The body member `name` of a proxied request, when it is a string.
    static func member(_ name: String, of request: RecordingHTTPServer.Request) -> String? {
        guard case .object(let object)? = try? JSONParser.parse(request.body) else { return nil }
        return object[name]?.stringValue
    }

    @Test func aMalformedHMACOrAnEmptyCapabilityCalledInvalidFailsCheck2() async throws {
        // What the gateway did before contract §2.3's "or a bad hmac" was heeded: a request whose
        // hmac is not 64 lowercase hex digits, or whose capability is empty, was 400 invalid_request.
        let running = try Self.start()
        let proxy = try GatewayProxy(to: running.gateway.url) { request in
            if let hmac = Self.member("hmac", of: request),
               hmac.utf8.count != 64 || !hmac.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) {
                return GatewayProxy.error(400, "invalid_request")
            }
            return Self.member("capability", of: request) == "" ? GatewayProxy.error(400, "invalid_request") : nil
        }
        let results = await Self.suite(running, credentials: .hmac(secret: Array(GatewayFixture.hmacSecret.utf8)),
                                       gatewayURL: proxy.baseURL).run([2])
        proxy.stop()
        await running.gateway.shutdown()
        running.mock.stop()

        let details = try #require(results.first).details
        #expect(results.first?.passed == false)
        #expect(details == ["uppercase hmac", "hmac with 2 digits dropped", "empty hmac", "64 non-hex characters as hmac",
                            "empty capability"].map { "\($0): answered 400 invalid_request, expected 403" },
                "the proxy forwards the rest, which our gateway refuses: \(details)")
    }

    @Test func anEmptyCapabilityRefusedWithAnotherCodeFailsCheck2InCapabilityMode() async throws {
        // A gateway that tests the capability for truth (as JavaScript's `if (!capability)` does)
        // calls "" missing: the plugin registers again only after invalid_capability.
        let running = try Self.start()
        let proxy = try GatewayProxy(to: running.gateway.url) { request in
            Self.member("capability", of: request) == "" ? GatewayProxy.error(403, "missing_authorization") : nil
        }
        let results = await Self.suite(running, credentials: .capability, gatewayURL: proxy.baseURL).run([2])
        proxy.stop()
        await running.gateway.shutdown()
        running.mock.stop()

        #expect(results.first?.passed == false)
        #expect(results.first?.details == ["empty capability: answered 403 missing_authorization, expected 403 invalid_capability"])
    }

    @Test func a410WithAnUnnamedReasonNotMappedTo410FailsCheck3() async throws {
        // What the gateway did before it mapped a 410 by its status: a reason it did not know
        // with a 4xx was 502 apns_rejected, so the plugin retried a token APNs called gone.
        let running = try Self.start(rewrite: { result in
            guard case .rejected(410, let reason, _) = result, reason != .unregistered, reason != .expiredToken else { return result }
            return .rejected(status: 400, reason: reason, timestamp: nil)
        })
        let results = await Self.suite(running, credentials: .capability).run([3])
        await running.gateway.shutdown()
        running.mock.stop()

        let details = try #require(results.first).details
        #expect(results.first?.passed == false)
        #expect(details.contains("410 DeviceTokenRevoked: the gateway answered 502, expected 410"), "\(details)")
        #expect(details.contains("410 Unregistered → 410 device_token_inactive"), "only the unnamed reason is misread: \(details)")
    }

    @Test func theTopicCheckCatchesAWrongBundleID() async throws {
        let running = try Self.start()
        var suite = Self.suite(running, credentials: .capability).configuration
        suite.topic = "com.example.expected"
        let results = await GatewayConformanceSuite(configuration: suite).run([1])
        await running.gateway.shutdown()
        running.mock.stop()
        #expect(results.first?.passed == false)
        #expect(results.first?.details.contains { $0.contains("apns-topic is com.example.app, expected com.example.expected") } == true,
                "\(ConformanceReport.table(results))")
    }
}

/// The `gateway-conformance` command: table on stdout, JUnit file, exit 0/1/2.
@Suite(.timeLimit(.minutes(3)))
struct GatewayConformanceCommandTests {
    static var executable: URL {
        PushGatewayCommandTests.executable.deletingLastPathComponent().appendingPathComponent("gateway-conformance")
    }

    @Test func itPassesOurGatewayAndWritesJUnit() async throws {
        let running = try GatewayConformanceTests.start()
        let junit = FileManager.default.temporaryDirectory.appendingPathComponent("conformance-\(UUID().uuidString).xml")
        defer { try? FileManager.default.removeItem(at: junit) }
        let arguments = ["--gateway", running.gateway.url, "--mock-control", running.mock.controlURL, "--topic", GatewayFixture.topic,
                         "--junit", junit.path, "--soak", "1"]
        let passing = try await onThread {
            try PushGatewayCommandTests.run(arguments, environment: ["HERMES_PUSH_HMAC_SECRET": GatewayFixture.hmacSecret],
                                            executable: Self.executable)
        }
        let failing = try await onThread {
            try PushGatewayCommandTests.run(arguments + ["--check", "1"], environment: ["HERMES_PUSH_HMAC_SECRET": "wrong"],
                                            executable: Self.executable)
        }
        await running.gateway.shutdown()
        running.mock.stop()

        #expect(passing.status == 0, "\(passing.output)\(passing.errors)")
        #expect(passing.output.contains(" 6  PASS") && passing.output.contains("all 6 checks passed"))
        let xml = try String(contentsOf: junit, encoding: .utf8)
        #expect(xml.contains(#"<testsuite name="gateway-conformance" tests="1" failures="1""#), "the second run rewrote it: \(xml)")
        #expect(failing.status == 1, "\(failing.output)")
        #expect(failing.output.contains(" 1  FAIL"))
    }

    @Test func usageErrorsExit2() async throws {
        let help = try await onThread { try PushGatewayCommandTests.run(["--help"], environment: [:], executable: Self.executable) }
        #expect(help.status == 0 && help.output.contains("CHECKS:"))
        for arguments in [["--mock-control", "http://x"], ["--gateway", "http://x"],
                          ["--gateway", "ftp://x", "--mock-control", "http://x"],
                          ["--gateway", "http://x", "--mock-control", "http://x", "--auth-mode", "hmac"],
                          ["--gateway", "http://x", "--mock-control", "http://x", "--check", "7"]] {
            let result = try await onThread { try PushGatewayCommandTests.run(arguments, environment: [:], executable: Self.executable) }
            #expect(result.status == 2, "\(arguments): \(result.errors)")
            #expect(result.errors.hasPrefix("Error: "))
        }
    }
}
