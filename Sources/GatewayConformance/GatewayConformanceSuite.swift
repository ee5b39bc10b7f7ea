import Foundation
import HermesContract
import StrictJSON

/// Judges a push gateway against contract §2–3 through the apns-mock it forwards to.
///
/// The checks, numbered as in issue 6:
/// 1. Each trigger type delivers the right APNs request (contract §3).
/// 2. A tampered or malformed HMAC (uppercase, short, empty, not hex), missing auth and a
///    stale or empty capability are refused (403, never 400), and nothing reaches the mock.
/// 3. 410 (whatever its reason), 5xx and 429 answers from the mock map as the contract says.
/// 4. Retries never duplicate a push: every attempt of one push has one apns-id, at most
///    one is accepted.
/// 5. An expired provider token is replaced by a freshly minted one and the push goes through.
/// 6. The provider token keeps passing the mock's checks over time (simulated hours when
///    the caller can advance the clocks, else a real-time soak).
/// 7. A slow APNs is answered with a 5xx within the plugin's 5 s timeout, so the plugin
///    retries a push it knows failed instead of giving up on one that may still arrive.
///
/// Each check uses fresh random device tokens and fault rules matched to them, so a shared
/// mock is not disturbed. The gateway must answer a plugin request within the HTTP timeout.
///
/// ```swift
/// let suite = GatewayConformanceSuite(configuration: ConformanceConfiguration(
///     gatewayURL: "http://127.0.0.1:8088/push", mockControlURL: "http://127.0.0.1:2199", credentials: .capability))
/// let results = await suite.run()
/// print(ConformanceReport.table(results))
/// ```
public struct GatewayConformanceSuite: Sendable {
    public let configuration: ConformanceConfiguration
    private let http = ConformanceHTTP()
    private var sender: PluginSender { PluginSender(configuration: configuration, http: http) }
    private let mock: MockControl

    public init(configuration: ConformanceConfiguration) {
        self.configuration = configuration
        mock = MockControl(baseURL: configuration.mockControlURL)
    }

    /// The checks' titles, by number.
    public static let titles = [
        1: "each trigger type delivers the contract's APNs request",
        2: "tampered or malformed HMAC, missing auth, stale or empty capability: 403, nothing reaches APNs",
        3: "410 (any reason), 5xx and 429 from APNs map as the contract says",
        4: "retries never duplicate a push (one apns-id)",
        5: "an expired provider token is minted afresh",
        6: "the provider token keeps passing over time",
        7: "a slow APNs is answered with a 5xx within the plugin's 5 s timeout",
    ]

    /// The checks' numbers, every one of which ``run(_:)`` runs by default.
    public static let numbers = 1...7

    /// The plugin's timeout (contract §2): it reads no answer after it, and tries again.
    public static let pluginTimeout = Duration.seconds(5)

    /// Runs `numbers` (all seven by default) in order; a check that throws fails with the error.
    public func run(_ numbers: [Int] = Array(Self.numbers)) async -> [ConformanceCheckResult] {
        var results: [ConformanceCheckResult] = []
        for number in numbers {
            let started = ContinuousClock.now
            var details: [String] = []
            var passed: Bool
            do {
                switch number {
                case 1: passed = try await checkTriggerTypes(&details)
                case 2: passed = try await checkRefusals(&details)
                case 3: passed = try await checkOutcomeMapping(&details)
                case 4: passed = try await checkRetriesKeepOneAPNsID(&details)
                case 5: passed = try await checkExpiredProviderToken(&details)
                case 6: passed = try await checkTokenOverTime(&details)
                case 7: passed = try await checkSlowAPNs(&details)
                default:
                    passed = false
                    details.append("there is no check \(number)")
                }
            } catch {
                passed = false
                details.append("error: \(error)")
            }
            results.append(ConformanceCheckResult(
                number: number, title: Self.titles[number] ?? "unknown", passed: passed, details: details,
                seconds: started.duration(to: .now).conformanceSeconds))
        }
        http.invalidate()
        await mock.close()
        return results
    }

    // MARK: 1

    private func checkTriggerTypes(_ details: inout [String]) async throws -> Bool {
        var passed = true
        for type in HermesPushType.allCases {
            let token = PluginSender.randomToken(), session = PluginSender.randomSession(type.rawValue)
            let answer = try await sender.send(sender.request(type, token: token, session: session))
            guard (200..<300).contains(answer.status) else {
                details.append("\(type.rawValue): the gateway answered \(answer.status): \(answer.text.prefix(200))")
                passed = false
                continue
            }
            let pushes = try await mock.waitForPushes(to: token, count: 1, timeout: configuration.waitTimeout)
            guard pushes.count == 1, let push = pushes.first else {
                details.append("\(type.rawValue): \(pushes.count) pushes reached the mock, expected 1")
                passed = false
                continue
            }
            let problems = ContractSection3.problems(push, type: type, session: session, topic: configuration.topic)
                + HermesProfileCheck.problems(push)
            if push.environment != configuration.environment.rawValue {
                details.append("\(type.rawValue): reached the \(push.environment ?? "?") listener, expected \(configuration.environment.rawValue)")
                passed = false
            }
            for problem in problems { details.append("\(type.rawValue): \(problem)") }
            passed = passed && problems.isEmpty
        }
        details.append(HermesProfileCheck.note)
        return passed
    }

    // MARK: 2

    private func checkRefusals(_ details: inout [String]) async throws -> Bool {
        let token = PluginSender.randomToken(), session = PluginSender.randomSession("auth")
        var tampered = sender.request(.approval, token: token, session: session)
        tampered.hmac = try PluginSender.hexHMAC(Array("not the shared secret".utf8), tampered.canonicalBytes)
        // The right HMAC when the suite has the secret, so only its form is wrong.
        var wellFormed = tampered.hmac ?? ""
        if case .hmac(let secret) = configuration.credentials {
            wellFormed = try PluginSender.hexHMAC(secret, tampered.canonicalBytes)
            // Signed correctly, then changed: the HMAC no longer covers the body.
            tampered.hmac = wellFormed
            tampered.type = .clarify
            tampered.title = HermesPushType.clarify.title
            tampered.body = HermesPushType.clarify.body
        }
        let missing = sender.request(.approval, token: token, session: session)
        var stale = sender.request(.approval, token: token, session: session)
        stale.capability = "v1." + String(repeating: "A", count: 43)
        var refused = [("tampered hmac", tampered), ("missing auth", missing), (Self.staleCapability, stale)]
        for (name, value) in MalformedHMAC.variants(of: wellFormed) {
            var malformed = sender.request(.approval, token: token, session: session)
            malformed.hmac = value
            refused.append((name, malformed))
        }
        var empty = sender.request(.approval, token: token, session: session)
        empty.capability = ""
        refused.append((Self.emptyCapability, empty))
        var passed = true
        for (name, request) in refused {
            let answer = try await sender.post(request)
            let code = Self.errorCode(answer.body)
            if answer.status != 403 {
                details.append("\(name): answered \(answer.status)\(code.map { " " + $0 } ?? ""), expected 403")
                passed = false
            } else if code == nil {
                details.append("\(name): the 403 has no JSON body with an \"error\" member")
                passed = false
            } else if Self.capabilityRefusals.contains(name), case .capability = configuration.credentials,
                      code != HermesGatewayErrorCode.invalidCapability.rawValue {
                // The plugin registers again only after invalid_capability: another code strands it.
                details.append("\(name): answered 403 \(code ?? ""), expected 403 invalid_capability")
                passed = false
            }
        }
        // A valid push afterwards: if the refused ones had been forwarded, they would be there first.
        let valid = try await sender.send(sender.request(.complete, token: token, session: session))
        guard (200..<300).contains(valid.status) else {
            details.append("the valid push after the refused ones answered \(valid.status)")
            return false
        }
        let pushes = try await mock.waitForPushes(to: token, count: 1, timeout: configuration.waitTimeout)
        try await Task.sleep(for: .milliseconds(300))
        let all = try await mock.pushes(to: token)
        if all.count != 1 || pushes.count != 1 {
            details.append("\(all.count) pushes reached the mock, expected only the authorized one")
            passed = false
        }
        return passed
    }

    // MARK: 3

    private func checkOutcomeMapping(_ details: inout [String]) async throws -> Bool {
        struct Case {
            var name: String
            var action: JSONValue
            var accepts: (Int) -> Bool
            var expected: String
        }
        let cases = [
            Case(name: "410 Unregistered", action: MockControl.status(410, reason: "Unregistered"), accepts: { $0 == 410 }, expected: "410"),
            Case(name: "410 ExpiredToken", action: MockControl.status(410, reason: "ExpiredToken"), accepts: { $0 == 410 }, expected: "410"),
            // A reason the contract does not name, as APNs may add: the status says the token is
            // gone, and a gateway that maps by reason alone leaves it to be pushed to forever.
            Case(name: "410 \(Self.unnamedGoneReason)", action: MockControl.status(410, reason: Self.unnamedGoneReason),
                 accepts: { $0 == 410 }, expected: "410"),
            Case(name: "500 InternalServerError", action: MockControl.status(500, reason: "InternalServerError"),
                 accepts: { (500..<600).contains($0) }, expected: "5xx"),
            Case(name: "503 ServiceUnavailable", action: .object(["type": "unavailable", "reason": "ServiceUnavailable"]),
                 accepts: { (500..<600).contains($0) }, expected: "5xx"),
            // The contract has no row for 429: the push must not count as delivered, and the
            // device must not be pruned (no 410), nor the request called invalid (no 400).
            Case(name: "429 TooManyRequests", action: MockControl.status(429, reason: "TooManyRequests"),
                 accepts: { $0 == 429 || (500..<600).contains($0) }, expected: "429 or 5xx"),
        ]
        var passed = true
        for (index, item) in cases.enumerated() {
            let token = PluginSender.randomToken(), id = "conformance-3-\(index)-\(token.prefix(8))"
            try await mock.addFault(id: id, deviceToken: token, action: item.action)
            let answer = try await sender.send(sender.request(.approval, token: token, session: PluginSender.randomSession("map")))
            await mock.removeFault(id: id)
            if !item.accepts(answer.status) {
                details.append("\(item.name): the gateway answered \(answer.status), expected \(item.expected)")
                passed = false
            } else if !Self.isJSONError(answer.body) {
                details.append("\(item.name): \(answer.status) without a JSON error body")
                passed = false
            } else {
                details.append("\(item.name) → \(answer.status) \(Self.errorCode(answer.body) ?? "")")
            }
        }
        return passed
    }

    // MARK: 4

    private func checkRetriesKeepOneAPNsID(_ details: inout [String]) async throws -> Bool {
        var passed = true
        let faults: [(String, JSONValue)] = [
            ("503 once", .object(["type": "unavailable", "reason": "ServiceUnavailable"])),
            ("500 once", MockControl.status(500, reason: "InternalServerError")),
            ("connection dropped once", .object(["type": "close_connection"])),
        ]
        for (index, (name, action)) in faults.enumerated() {
            let token = PluginSender.randomToken(), id = "conformance-4-\(index)-\(token.prefix(8))"
            try await mock.addFault(id: id, deviceToken: token, count: 1, action: action)
            let answer = try await sender.send(sender.request(.approval, token: token, session: PluginSender.randomSession("retry")))
            await mock.removeFault(id: id)
            let expected = (200..<300).contains(answer.status) ? 2 : 1
            let pushes = try await mock.waitForPushes(to: token, count: expected, timeout: configuration.waitTimeout)
            let ids = Set(pushes.compactMap { $0.header("apns-id") ?? $0.apnsID })
            let accepted = pushes.filter { $0.status == 200 }.count
            if ids.count > 1 {
                details.append("\(name): \(pushes.count) attempts carried \(ids.count) different apns-ids")
                passed = false
            }
            if accepted > 1 {
                details.append("\(name): delivered \(accepted) times")
                passed = false
            }
            if (200..<300).contains(answer.status) {
                details.append("\(name): retried, \(pushes.count) attempts, one apns-id")
            } else {
                details.append("\(name): not retried (answered \(answer.status)); nothing duplicated")
            }
        }
        return passed
    }

    // MARK: 5

    private func checkExpiredProviderToken(_ details: inout [String]) async throws -> Bool {
        let token = PluginSender.randomToken(), id = "conformance-5-\(token.prefix(8))"
        // First push: establishes the current token. Second: APNs calls it expired once.
        let first = try await sender.send(sender.request(.complete, token: token, session: PluginSender.randomSession("jwt")))
        guard (200..<300).contains(first.status) else {
            details.append("the first push answered \(first.status)")
            return false
        }
        try await mock.addFault(id: id, deviceToken: token, count: 1, action: MockControl.status(403, reason: "ExpiredProviderToken"))
        let answer = try await sender.send(sender.request(.complete, token: token, session: PluginSender.randomSession("jwt")))
        await mock.removeFault(id: id)
        let pushes = try await mock.waitForPushes(to: token, count: 3, timeout: configuration.waitTimeout)
        guard (200..<300).contains(answer.status) else {
            details.append("after ExpiredProviderToken the gateway answered \(answer.status) instead of resending with a new token")
            return false
        }
        guard pushes.count >= 3 else {
            details.append("\(pushes.count) pushes reached the mock, expected the first, the refused one and a resend")
            return false
        }
        let refused = pushes[1], resent = pushes[pushes.count - 1]
        guard refused.reason == "ExpiredProviderToken", resent.status == 200 else {
            details.append("expected ExpiredProviderToken then 200, got \(refused.reason ?? String(refused.status)) then \(resent.status)")
            return false
        }
        guard let old = refused.tokenFingerprint, let new = resent.tokenFingerprint, old != new else {
            details.append("the resend carried the same provider token (fingerprint \(resent.tokenFingerprint ?? "none"))")
            return false
        }
        details.append("resent with a new provider token (\(old) → \(new))")
        return true
    }

    // MARK: 6

    private func checkTokenOverTime(_ details: inout [String]) async throws -> Bool {
        var pushes: [CapturedPush] = []
        var failures: [String] = []
        func pushOnce(_ label: String) async throws {
            let token = PluginSender.randomToken()
            let answer = try await sender.send(sender.request(.complete, token: token, session: PluginSender.randomSession("soak")))
            let captured = try await mock.waitForPushes(to: token, count: 1, timeout: configuration.waitTimeout)
            if !(200..<300).contains(answer.status) {
                failures.append("\(label): answered \(answer.status) \(captured.first?.reason ?? "")")
            }
            pushes += captured
        }
        if let advance = configuration.advanceClock {
            var elapsed = Duration.zero
            while elapsed <= configuration.simulatedDuration {
                try await pushOnce("at +\(elapsed.components.seconds / 60) min")
                await advance(configuration.simulatedStep)
                elapsed += configuration.simulatedStep
            }
            details.append("simulated \(configuration.simulatedDuration.components.seconds / 3600) h in \(configuration.simulatedStep.components.seconds / 60)-minute steps")
        } else {
            let deadline = ContinuousClock.now + configuration.soakDuration
            var index = 0
            repeat {
                try await pushOnce("push \(index)")
                index += 1
                try await Task.sleep(for: .milliseconds(500))
            } while ContinuousClock.now < deadline
            details.append("real time only (\(configuration.soakDuration.components.seconds) s): run in-process with an injected clock for hours")
        }
        let rejected = pushes.filter { $0.status != 200 }
        for push in rejected { failures.append("the mock refused a push: \(push.status) \(push.reason ?? "")") }
        let fingerprints = pushes.compactMap(\.tokenFingerprint)
        var distinct: [String] = []
        for fingerprint in fingerprints where distinct.last != fingerprint { distinct.append(fingerprint) }
        details.append("\(pushes.count) pushes, \(distinct.count) provider token(s) in sequence")
        if configuration.advanceClock != nil {
            let hours = Int(configuration.simulatedDuration.components.seconds / 3600)
            if distinct.count < hours {
                failures.append("only \(distinct.count) tokens over \(hours) h: a token must be refreshed at least hourly")
            }
        }
        details += failures
        return failures.isEmpty
    }

    // MARK: 7

    /// How long check 7's APNs holds its answer: past any timeout a gateway should have.
    static let slowAPNsDelay = Duration.seconds(20)
    /// How long check 7 waits for an answer at all: past the plugin's timeout, so that a late
    /// answer is reported with its time, and well short of the delay.
    static let slowAnswerLimit = Duration.seconds(10)

    private func checkSlowAPNs(_ details: inout [String]) async throws -> Bool {
        let token = PluginSender.randomToken(), id = "conformance-7-\(token.prefix(8))"
        let push = sender.request(.approval, token: token, session: PluginSender.randomSession("slow"))
        // Authorized before the clock starts: registering is not part of the timed push.
        let request = try await sender.authorized(push)
        if case .hmac = configuration.credentials {
            // A refused push first, as registering is in capability mode, so the timed one goes out
            // on an open connection and its time counts from its write, as the plugin's does.
            _ = try? await sender.post(push)
        }
        try await mock.addFault(id: id, deviceToken: token, action: MockControl.delay(Self.slowAPNsDelay))
        let limit = "the plugin's \(Self.pluginTimeout.components.seconds) s timeout"
        let delay = "APNs delayed \(Self.slowAPNsDelay.components.seconds) s"
        let started = ContinuousClock.now
        let answer: ConformanceHTTP.Answer
        do {
            answer = try await sender.post(request, timeout: Self.slowAnswerLimit)
        } catch {
            await mock.removeFault(id: id)
            details.append("\(delay): no answer after \(started.duration(to: .now).conformanceText), past \(limit) (\(error))")
            return false
        }
        // The delay rule fires as the push arrives: a gateway that answered 5xx in time without
        // forwarding (a circuit breaker, a stub) has shown nothing about a slow APNs.
        let forwarded = try? await mock.firings(ofFault: id)
        await mock.removeFault(id: id)
        let code = Self.errorCode(answer.body)
        let summary = "\(delay): answered \(answer.status)\(code.map { " " + $0 } ?? "") after \(answer.elapsed.conformanceText)"
        var problems: [String] = []
        switch forwarded {
        case nil: problems.append("could not ask the mock whether the push reached APNs")
        case 0?: problems.append("the push never reached APNs (the mock's delay rule did not fire)")
        default: break
        }
        if !(500..<600).contains(answer.status) { problems.append("expected a 5xx, which the plugin retries") }
        if answer.elapsed >= Self.pluginTimeout { problems.append("past \(limit): the plugin has given up and retries a push APNs may still deliver") }
        if code == nil { problems.append("without a JSON error body") }
        details.append(problems.isEmpty ? "\(summary), within \(limit)" : ([summary] + problems).joined(separator: "; "))
        return problems.isEmpty
    }

    // MARK: Helpers

    /// Check 3's 410 reason that APNs has not defined, so that only the status says "gone".
    static let unnamedGoneReason = "DeviceTokenRevoked"

    /// Check 2's name for a request whose `capability` is empty: one no gateway issues.
    static let emptyCapability = "empty capability"
    /// Check 2's name for a request whose `capability` was issued under another key.
    static let staleCapability = "stale capability"
    /// Check 2's refusals of a capability, which in capability mode must be
    /// `invalid_capability`: the one code after which the plugin registers again.
    static let capabilityRefusals: Set<String> = [emptyCapability, staleCapability]

    static func isJSONError(_ body: [UInt8]) -> Bool { errorCode(body) != nil }

    static func errorCode(_ body: [UInt8]) -> String? {
        guard case .object(let object)? = try? JSONParser.parse(body, maximumDepth: 8) else { return nil }
        return object["error"]?.stringValue
    }
}
