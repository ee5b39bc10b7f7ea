import APNsClient
import Foundation
import GatewayConformance
import HTTPTransport
import HermesContract
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

        /// The gateway first, so that nothing it still sends meets a stopped mock.
        func stop() async {
            await gateway.shutdown()
            mock.stop()
        }
    }

    /// - Parameters:
    ///   - configure: changes the gateway's configuration.
    ///   - rewrite: changes what APNs answered before the gateway maps it.
    ///   - forwards: false makes a gateway that answers every push as APNs unreachable, at
    ///     once, without sending it.
    static func start(modes: Set<GatewayAuthMode> = Set(GatewayAuthMode.allCases), secrets: GatewaySecrets = GatewayFixture.secrets,
                      wrongTopic: Bool = false, configure: (inout GatewayConfiguration) -> Void = { _ in },
                      rewrite: (@Sendable (APNsDeliveryResult) -> APNsDeliveryResult)? = nil,
                      forwards: Bool = true) throws -> Running {
        let clock = SimulatedClock()
        let mock = try MockAPNsServer.startForTesting(certsDirectory: GatewayFixture.certs, now: { clock.now })
        var configuration = GatewayFixture.configuration(modes: modes)
        configuration.productionURL = mock.productionURL
        configuration.sandboxURL = mock.sandboxURL
        configuration.apnsCAPath = mock.trustRootsPath
        if wrongTopic { configuration.topic = "com.example.app.other" }
        configure(&configuration)
        let client = try APNsClientDelivery(configuration: configuration, now: { clock.now }, adjust: { client in
            client.retryPolicy.initialBackoff = .milliseconds(5)
            client.retryPolicy.maximumBackoff = .milliseconds(20)
        })
        var delivery: any APNsDelivering = rewrite.map { RewritingDelivery(base: client, rewrite: $0) } ?? client
        if !forwards { delivery = UnforwardingDelivery(base: delivery) }
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
        await running.stop()

        let table = ConformanceReport.table(results)
        #expect(results.map(\.number) == [1, 2, 3, 4, 5, 6, 7])
        #expect(results.allSatisfy { $0.passed }, "\(table)")
        #expect(table.contains("all 7 checks passed"))
        let simulated = try #require(results[5].details.first { $0.contains("provider token(s)") })
        #expect(simulated.hasPrefix("31 pushes"), "\(simulated)")
        // apns_timeout_ms (4000) ends the APNs leg before the plugin's 5 s.
        #expect(results[6].details.count == 1 && results[6].details[0].hasPrefix("APNs delayed 20 s: answered 503 apns_unavailable after 4.")
                && results[6].details[0].hasSuffix("within the plugin's 5 s timeout"), "\(results[6].details)")
        let junit = ConformanceReport.junit(results)
        #expect(junit.contains(#"tests="7" failures="0""#))
        #expect(junit.contains(#"name="7. a slow APNs is answered with a 5xx within the plugin&apos;s 5 s timeout""#), "\(junit)")
    }

    @Test func aGatewayThatBreaksTheContractFails() async throws {
        // Wrong bundle id (check 1) and a shared secret the plugin does not have (every hmac push is refused).
        let running = try Self.start(modes: [.hmac], secrets: GatewaySecrets(hmacSecret: Array("another-secret".utf8)), wrongTopic: true)
        let results = await Self.suite(running, credentials: .hmac(secret: Array(GatewayFixture.hmacSecret.utf8))).run([1, 2])
        await running.stop()
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
        // A gateway that misses contract §2.3's "or a bad hmac": a request whose hmac is not
        // 64 lowercase hex digits, or whose capability is empty, gets 400 invalid_request.
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
        await running.stop()

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
        await running.stop()

        #expect(results.first?.passed == false)
        #expect(results.first?.details == ["empty capability: answered 403 missing_authorization, expected 403 invalid_capability"])
    }

    @Test func aStaleCapabilityRefusedWithAnotherCodeFailsCheck2InCapabilityMode() async throws {
        // A 403 the plugin does not re-register after leaves it with a capability that will
        // never work again (after the gateway's key was rotated, say).
        let running = try Self.start()
        let proxy = try GatewayProxy(to: running.gateway.url) { request in
            (Self.member("capability", of: request) ?? "").hasPrefix("v1.AAAA") ? GatewayProxy.error(403, "missing_authorization") : nil
        }
        let results = await Self.suite(running, credentials: .capability, gatewayURL: proxy.baseURL).run([2])
        proxy.stop()
        await running.stop()

        #expect(results.first?.passed == false)
        #expect(results.first?.details == ["stale capability: answered 403 missing_authorization, expected 403 invalid_capability"])
    }

    @Test func a410WithAnUnnamedReasonNotMappedTo410FailsCheck3() async throws {
        // A gateway that maps a 410 by its reason, not its status: a reason it does not know
        // with a 4xx is 502 apns_rejected, so the plugin retries a token APNs called gone.
        let running = try Self.start(rewrite: { result in
            guard case .rejected(410, let reason, _) = result, reason != .unregistered, reason != .expiredToken else { return result }
            return .rejected(status: 400, reason: reason, timestamp: nil)
        })
        let results = await Self.suite(running, credentials: .capability).run([3])
        await running.stop()

        let details = try #require(results.first).details
        #expect(results.first?.passed == false)
        #expect(details.contains("410 DeviceTokenRevoked: the gateway answered 502, expected 410"), "\(details)")
        #expect(details.contains("410 Unregistered → 410 device_token_inactive"), "only the unnamed reason is misread: \(details)")
    }

    @Test func aGatewayAnsweringASlowAPNsPastThePluginsTimeoutFailsCheck7() async throws {
        // Its APNs leg may take 6 s: the 503 comes after the plugin gave up at 5 s.
        let running = try Self.start(configure: { $0.apnsTimeout = .seconds(6) })
        let results = await Self.suite(running, credentials: .hmac(secret: Array(GatewayFixture.hmacSecret.utf8))).run([7])
        await running.stop()

        let details = try #require(results.first).details
        #expect(results.first?.passed == false)
        #expect(details.count == 1 && details[0].hasPrefix("APNs delayed 20 s: answered 503 apns_unavailable after 6.")
                && details[0].hasSuffix("past the plugin's 5 s timeout: the plugin has given up and retries a push APNs may still deliver"),
                "\(details)")
    }

    @Test func aGatewayAnswering5xxInTimeWithoutForwardingFailsCheck7() async throws {
        // A circuit breaker or a stub: 503 at once passes the timing, but says nothing about
        // how the gateway meets a slow APNs, as the push never reached one.
        let running = try Self.start(forwards: false)
        let results = await Self.suite(running, credentials: .hmac(secret: Array(GatewayFixture.hmacSecret.utf8))).run([7])
        await running.stop()

        let details = try #require(results.first).details
        #expect(results.first?.passed == false)
        #expect(details.count == 1 && details[0].hasPrefix("APNs delayed 20 s: answered 503 apns_unavailable after ")
                && details[0].hasSuffix("; the push never reached APNs (the mock's delay rule did not fire)"), "\(details)")
    }

    @Test func aGatewayThatWaitsOutASlowAPNsFailsCheck7WithoutWaitingWithIt() async throws {
        // A gateway that does not bound its APNs leg, left to the client's 30 s request
        // timeout: check 7 gives up at its 10 s limit instead of waiting out the mock's 20 s.
        let running = try Self.start(configure: { $0.apnsTimeout = .seconds(30) })
        let results = await Self.suite(running, credentials: .capability).run([7])
        await running.stop()

        let result = try #require(results.first)
        #expect(!result.passed)
        #expect(result.details.count == 1 && result.details[0].hasPrefix("APNs delayed 20 s: no answer after 10.")
                && result.details[0].contains("past the plugin's 5 s timeout"), "\(result.details)")
        #expect(result.seconds < 15, "waited \(result.seconds) s")
    }

    @Test func theTopicCheckCatchesAWrongBundleID() async throws {
        let running = try Self.start()
        var suite = Self.suite(running, credentials: .capability).configuration
        suite.topic = "com.example.expected"
        let results = await GatewayConformanceSuite(configuration: suite).run([1])
        await running.stop()
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
        await running.stop()

        #expect(passing.status == 0, "\(passing.output)\(passing.errors)")
        #expect(passing.output.contains(" 7  PASS") && passing.output.contains("all 7 checks passed"), "\(passing.output)")
        let xml = try String(contentsOf: junit, encoding: .utf8)
        #expect(xml.contains(#"<testsuite name="gateway-conformance" tests="1" failures="1""#), "the second run rewrote it: \(xml)")
        #expect(failing.status == 1, "\(failing.output)")
        #expect(failing.output.contains(" 1  FAIL"))
    }

    /// A results table that cannot be written (standard output on a full disk) fails the run
    /// with 2, not 1 (which says a check failed), without a crash; the JUnit file is written.
    @Test func aTableThatCannotBeWrittenExits2AndTheJUnitFileIsStillWritten() async throws {
        let running = try GatewayConformanceTests.start()
        let junit = FileManager.default.temporaryDirectory.appendingPathComponent("conformance-\(UUID().uuidString).xml")
        defer { try? FileManager.default.removeItem(at: junit) }
        let result = try await SpawnedProcess.runDetached(
            Self.executable.path, ["--gateway", running.gateway.url, "--mock-control", running.mock.controlURL, "--junit", junit.path,
                                   "--check", "1"],
            full: .output, environment: ["HERMES_PUSH_HMAC_SECRET": GatewayFixture.hmacSecret])
        await running.stop()

        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr == "Error: cannot write the results table to standard output: No space left on device\n")
        let xml = try String(contentsOf: junit, encoding: .utf8)
        #expect(xml.contains(#"<testsuite name="gateway-conformance" tests="1" failures="0""#), "\(xml)")
    }

    @Test func usageErrorsExit2() async throws {
        let help = try await onThread { try PushGatewayCommandTests.run(["--help"], environment: [:], executable: Self.executable) }
        #expect(help.status == 0 && help.output.contains("CHECKS:"))
        #expect(help.output.contains("  7. a slow APNs is answered with a 5xx within the plugin's 5 s timeout\n")
                && help.output.contains("Run only check N (1-7)."), "\(help.output)")
        for arguments in [["--mock-control", "http://x"], ["--gateway", "http://x"],
                          ["--gateway", "ftp://x", "--mock-control", "http://x"],
                          ["--gateway", "http://x", "--mock-control", "http://x", "--auth-mode", "hmac"],
                          ["--gateway", "http://x", "--mock-control", "http://x", "--check", "8"]] {
            let result = try await onThread { try PushGatewayCommandTests.run(arguments, environment: [:], executable: Self.executable) }
            #expect(result.status == 2, "\(arguments): \(result.errors)")
            #expect(result.errors.hasPrefix("Error: "))
        }
    }
}

/// A delivery that sends nothing: every push is answered at once as APNs unreachable.
private struct UnforwardingDelivery: APNsDelivering {
    let base: any APNsDelivering

    func deliver(_ request: GatewayAPNsRequest, to environment: HermesAPNsEnvironment) async -> APNsDeliveryResult {
        .unreachable("not forwarded")
    }

    func deliver(_ request: GatewayAPNsRequest, to environment: HermesAPNsEnvironment,
                 completion: @escaping @Sendable (APNsDeliveryResult) -> Void) {
        completion(.unreachable("not forwarded"))
    }

    func shutdown() async { await base.shutdown() }

    var eventLoopGroup: EventLoopGroup? { base.eventLoopGroup }
}
