import APNsCore
import CLISupport
import Foundation
import HTTPTransport
import HermesContract
import PushGateway
import PushTestSupport
import Testing

/// The gateway's HTTP side against a fake APNs delivery: routing, validation, both auth
/// modes, outcome mapping and limits.
@Suite(.timeLimit(.minutes(1)))
struct GatewayHTTPTests {
    @Test func anHMACSignedPushBecomesTheContractsAPNsRequest() async throws {
        let delivery = FakeDelivery()
        let gateway = try GatewayFixture.start(delivery: delivery, wallClock: { 1_800_000_000 })
        let client = try GatewayFixture.client(for: gateway.url)

        let request = try GatewayFixture.pushRequest(type: .approval, environment: .production, session: "20261130_a1")
        let response = try await client.send(GatewayFixture.post("/push", request.encodedBody()))
        await client.close()
        await gateway.shutdown()

        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "application/json")
        let sent = try #require(delivery.requests.first)
        #expect(delivery.requests.count == 1)
        #expect(sent.environment == .production)
        #expect(response.text == #"{"apns_id":"\#(sent.request.apnsID)"}"#)
        #expect(APNsIDGenerator.isCanonicalUUID(sent.request.apnsID))
        #expect(sent.request.deviceToken.hex == GatewayFixture.deviceToken)
        #expect(sent.request.topic == GatewayFixture.topic)
        #expect(sent.request.pushType == .alert && sent.request.priority == .immediately)
        #expect(sent.request.expiration == 1_800_000_000 + 3_600)
        #expect(sent.request.collapseID == "approval:20261130_a1")
        let payload = #"{"aps":{"alert":{"title":"Approval needed","body":"Hermes needs your approval"},"sound":"default","thread-id":"20261130_a1","category":"HERMES_APPROVAL","badge":1},"session_id":"20261130_a1","type":"approval"}"#
        #expect(String(decoding: sent.request.payload, as: UTF8.self) == payload)
    }

    @Test func everyPushGetsAFreshAPNsID() async throws {
        let delivery = FakeDelivery()
        let gateway = try GatewayFixture.start(delivery: delivery)
        let client = try GatewayFixture.client(for: gateway.url)
        for type in HermesPushType.allCases {
            let response = try await client.send(GatewayFixture.post("/push", try GatewayFixture.pushRequest(type: type).encodedBody()))
            #expect(response.status == 200)
        }
        await client.close()
        await gateway.shutdown()
        #expect(Set(delivery.requests.map(\.request.apnsID)).count == 4)
        #expect(delivery.requests.map(\.request.payload).map { HermesNotification(payload: $0)?.type } == HermesPushType.allCases)
    }

    @Test func refusedCredentialsAnswer403AndNeverReachAPNs() async throws {
        let delivery = FakeDelivery()
        let gateway = try GatewayFixture.start(delivery: delivery)
        let client = try GatewayFixture.client(for: gateway.url)

        var tampered = try GatewayFixture.pushRequest(type: .approval)
        tampered.hmac = try GatewayFixture.pushRequest(type: .clarify).hmac  // a valid hmac, of another request
        var wrongSecret = try GatewayFixture.pushRequest(secret: "not-the-secret")
        wrongSecret.capability = nil
        var unsigned = HermesPushRequest(deviceToken: GatewayFixture.deviceToken, environment: .sandbox, type: .approval, sessionID: "s")
        unsigned.threadID = nil
        let otherToken = try await register(client, GatewayFixture.otherDeviceToken)
        let borrowed = try GatewayFixture.pushRequest(capability: otherToken)
        let stale = try GatewayFixture.pushRequest(capability: try CapabilityIssuer(key: Array("an old key, rotated away since".utf8))
            .capability(for: try #require(DeviceToken(GatewayFixture.deviceToken))))

        func malformed(_ hmac: String) throws -> [UInt8] {
            var request = try GatewayFixture.pushRequest()
            request.hmac = hmac
            return request.encodedBody()
        }
        let valid = try #require(try GatewayFixture.pushRequest().hmac)

        let cases: [(String, [UInt8], String)] = [
            ("tampered hmac", tampered.encodedBody(), "invalid_hmac"),
            ("wrong secret", wrongSecret.encodedBody(), "invalid_hmac"),
            // Contract §2.3: a bad hmac is 403, whatever is wrong with it.
            ("uppercase hmac", try malformed(valid.uppercased()), "invalid_hmac"),
            ("short hmac", try malformed(String(valid.dropLast(2))), "invalid_hmac"),
            ("long hmac", try malformed(valid + "00"), "invalid_hmac"),
            ("empty hmac", try malformed(""), "invalid_hmac"),
            ("hmac not hex", try malformed(String(repeating: "z", count: 64)), "invalid_hmac"),
            ("no auth", unsigned.encodedBody(), "missing_authorization"),
            ("capability of another device", borrowed.encodedBody(), "invalid_capability"),
            ("stale capability", stale.encodedBody(), "invalid_capability"),
            // A capability the gateway never issues is a bad one, not an invalid request: 403
            // makes the plugin drop it and register again; 400 would make it give up.
            ("empty capability", try GatewayFixture.pushRequest(capability: "").encodedBody(), "invalid_capability"),
            ("oversized capability", try GatewayFixture.pushRequest(capability: String(repeating: "c", count: 600)).encodedBody(),
             "invalid_capability"),
        ]
        for (name, body, code) in cases {
            let response = try await client.send(GatewayFixture.post("/push", body))
            #expect(response.status == 403, "\(name)")
            #expect(response.errorCode == code, "\(name): \(response.text)")
        }
        await client.close()
        await gateway.shutdown()
        #expect(delivery.requests.isEmpty)
    }

    @Test func aRegisteredCapabilityAuthorizesItsDeviceOnly() async throws {
        let delivery = FakeDelivery()
        let gateway = try GatewayFixture.start(delivery: delivery)
        let client = try GatewayFixture.client(for: gateway.url)

        let capability = try await register(client, GatewayFixture.deviceToken.uppercased())
        #expect(capability.hasPrefix("v1."))
        #expect(try await register(client, GatewayFixture.deviceToken) == capability, "derived, so stable and case-blind")
        let response = try await client.send(GatewayFixture.post("/push", try GatewayFixture.pushRequest(capability: capability).encodedBody()))
        #expect(response.status == 200, "\(response.text)")

        // A second gateway with the same key accepts it: nothing was stored.
        let replica = try GatewayFixture.start(delivery: delivery)
        let replicaClient = try GatewayFixture.client(for: replica.url)
        let again = try await replicaClient.send(GatewayFixture.post("/push", try GatewayFixture.pushRequest(capability: capability).encodedBody()))
        #expect(again.status == 200)
        await replicaClient.close()
        await replica.shutdown()
        await client.close()
        await gateway.shutdown()
        #expect(delivery.requests.count == 2)
    }

    @Test func disabledModesAreRefused() async throws {
        let delivery = FakeDelivery()
        let hmacOnly = try GatewayFixture.start(GatewayFixture.configuration(modes: [.hmac]), delivery: delivery)
        let capabilityOnly = try GatewayFixture.start(GatewayFixture.configuration(modes: [.capability]), delivery: delivery)
        let first = try GatewayFixture.client(for: hmacOnly.url)
        let second = try GatewayFixture.client(for: capabilityOnly.url)

        let registerBody = HermesRegistration.requestBody(deviceToken: GatewayFixture.deviceToken)
        let noRegister = try await first.send(GatewayFixture.post("/register", registerBody))
        #expect(noRegister.status == 403 && noRegister.errorCode == "auth_mode_disabled")
        let capability = try await register(second, GatewayFixture.deviceToken)
        let capabilityRefused = try await first.send(GatewayFixture.post("/push", try GatewayFixture.pushRequest(capability: capability).encodedBody()))
        #expect(capabilityRefused.status == 403 && capabilityRefused.errorCode == "auth_mode_disabled")
        let hmacRefused = try await second.send(GatewayFixture.post("/push", try GatewayFixture.pushRequest().encodedBody()))
        #expect(hmacRefused.status == 403 && hmacRefused.errorCode == "auth_mode_disabled")
        await first.close()
        await second.close()
        await hmacOnly.shutdown()
        await capabilityOnly.shutdown()
        #expect(delivery.requests.isEmpty)
    }

    @Test func invalidBodiesAnswer400WithAJSONError() async throws {
        let delivery = FakeDelivery()
        let gateway = try GatewayFixture.start(delivery: delivery)
        let client = try GatewayFixture.client(for: gateway.url)
        let valid = String(decoding: try GatewayFixture.pushRequest().encodedBody(), as: UTF8.self)

        let bodies = [
            "not json",
            "[]",
            valid.replacingOccurrences(of: #""type":"approval""#, with: #""type":"reminder""#),
            valid.replacingOccurrences(of: #""apns_env":"sandbox""#, with: #""apns_env":"staging""#),
            valid.replacingOccurrences(of: #""session_id":"sess-1""#, with: #""session_id":"""#),
            valid.replacingOccurrences(of: #""session_id":"sess-1""#, with: #""session_id":"../etc/passwd""#),
            valid.replacingOccurrences(of: #""session_id":"sess-1""#, with: #""session_id":42"#),
            valid.replacingOccurrences(of: GatewayFixture.deviceToken, with: "not-hex"),
            // Hex, but shorter than any device token APNs issues (32 bytes).
            valid.replacingOccurrences(of: GatewayFixture.deviceToken, with: "abcd"),
            valid.replacingOccurrences(of: GatewayFixture.deviceToken, with: String(GatewayFixture.deviceToken.dropLast(2))),
            valid.replacingOccurrences(of: "Approval needed", with: "Delete /home? Reply YES"),
            valid.replacingOccurrences(of: #""thread_id":"sess-1""#, with: #""thread_id":"other""#),
            valid + "x",
            #"{"device_token":"\#(GatewayFixture.deviceToken)"}"#,
        ]
        for body in bodies {
            let response = try await client.send(GatewayFixture.post("/push", body))
            #expect(response.status == 400, "\(body)")
            #expect(response.errorCode == "invalid_request", "\(body): \(response.text)")
            #expect(response.headers["content-type"] == "application/json")
        }
        for token in ["zz", "abcd"] {
            let badRegister = try await client.send(GatewayFixture.post("/register", #"{"device_token":"\#(token)"}"#))
            #expect(badRegister.status == 400 && badRegister.errorCode == "invalid_request", "\(token): \(badRegister.text)")
        }
        await client.close()
        await gateway.shutdown()
        #expect(delivery.requests.isEmpty)
    }

    @Test func errorMessagesNeverRepeatTextFromTheRequest() async throws {
        let delivery = FakeDelivery()
        let gateway = try GatewayFixture.start(delivery: delivery)
        let client = try GatewayFixture.client(for: gateway.url)
        let hostile = "ann@example.com rm -rf /home/ann"
        let quoted = "\"\(hostile)\""
        let request = try GatewayFixture.pushRequest()
        let valid: [(key: String, json: String)] = [
            ("device_token", "\"\(request.deviceToken)\""), ("apns_env", #""sandbox""#), ("type", #""approval""#),
            ("session_id", #""sess-1""#), ("title", #""Approval needed""#), ("body", #""Hermes needs your approval""#),
            ("thread_id", #""sess-1""#), ("hmac", "\"\(request.hmac ?? "")\""),
        ]
        func object(_ members: [(key: String, json: String)]) -> [UInt8] {
            Array(("{" + members.map { "\"\($0.key)\":\($0.json)" }.joined(separator: ",") + "}").utf8)
        }
        func with(_ key: String, _ json: String) -> [UInt8] {
            object(valid.map { $0.key == key ? ($0.key, json) : $0 })
        }
        func without(_ key: String, adding extra: [(key: String, json: String)] = []) -> [UInt8] {
            object(valid.filter { $0.key != key } + extra)
        }
        let escapedKey = #"ann@example.com rm -rf /home/an\u006e"#

        var pushes: [(String, [UInt8])] = [
            ("duplicate unknown key", object(valid + [(hostile, "1"), (hostile, "2")])),
            ("duplicate key spelled with an escape", object(valid + [(escapedKey, "1"), (escapedKey, "2")])),
            ("duplicate contract key", object(valid + [("session_id", quoted)])),
            ("bare word", object(valid + [("x", hostile)])),
            ("invalid literal", object(valid + [(hostile, "nul")])),
            ("number out of range", object(valid + [(hostile, "1e999")])),
            ("invalid escape", object(valid + [("x", #""ann@example.com rm -rf /home/ann\q""#)])),
            ("lone surrogate", object(valid + [(hostile, #""\ud800""#)])),
            ("invalid UTF-8", object(valid + [("x", quoted)]).dropLast(3) + [0xFF, 0x22, 0x7D]),
            ("control character", object(valid + [("x", "\"\(hostile)\u{01}\"")])),
            ("too deep", object(valid + [(hostile, String(repeating: "[", count: 9) + quoted + String(repeating: "]", count: 9))])),
            ("unterminated string", Array(object(valid + [("x", quoted)]).dropLast(2))),
            ("trailing content", object(valid) + Array(hostile.utf8)),
            ("not an object", Array("[\(quoted)]".utf8)),
            ("a string", Array(quoted.utf8)),
            ("missing field", without("title", adding: [(hostile, quoted)])),
            ("missing authorization", without("hmac", adding: [(hostile, quoted)])),
            ("capability never issued", without("hmac", adding: [("capability", quoted)])),
            ("capability too long", without("hmac", adding: [("capability", "\"" + String(repeating: hostile, count: 20) + "\"")])),
        ]
        for (key, _) in valid {
            pushes.append(("\(key) of another type", with(key, "{\(quoted):\(quoted)}")))
            pushes.append(("\(key) invalid", with(key, quoted)))
        }
        let registrations: [(String, [UInt8])] = [
            ("register: duplicate key", object([("device_token", "\"abcd\""), (hostile, "1"), (hostile, "2")])),
            ("register: invalid token", object([("device_token", quoted)])),
            ("register: token of another type", object([("device_token", "[\(quoted)]")])),
            ("register: bare word", object([("device_token", hostile)])),
            ("register: missing token", object([(hostile, quoted)])),
        ]
        var answers: [(String, HTTPClientResponse)] = []
        for (name, body) in pushes { answers.append((name, try await client.send(GatewayFixture.post("/push", body)))) }
        for (name, body) in registrations { answers.append((name, try await client.send(GatewayFixture.post("/register", body)))) }
        answers.append(("unknown path", try await client.send(GatewayFixture.post("/ann@example.com", object(valid)))))
        answers.append(("wrong method", try await client.send(HTTPClientRequest(path: "/push?ann@example.com"))))
        await client.close()
        await gateway.shutdown()

        for (name, response) in answers {
            #expect((400..<500).contains(response.status), "\(name): \(response.status) \(response.text)")
            #expect(response.errorCode != nil, "\(name): \(response.text)")
            let message = (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])?["message"] as? String
            for fragment in ["ann@example.com", "rm -rf", "home/ann", "home\\/ann"] {
                #expect(!response.text.contains(fragment), "\(name): \(response.text)")
                #expect(message?.contains(fragment) != true, "\(name): \(message ?? "")")
            }
        }
        let duplicate = try #require(answers.first { $0.0 == "duplicate unknown key" }?.1)
        #expect(duplicate.text.contains("duplicate key at byte"), "names the problem and where: \(duplicate.text)")
        #expect(delivery.requests.isEmpty)
    }

    @Test func bodiesOverTheLimitAnswer413AndUnknownRoutes404Or405() async throws {
        let delivery = FakeDelivery()
        let gateway = try GatewayFixture.start(delivery: delivery)
        let client = try GatewayFixture.client(for: gateway.url)

        let padded = #"{"pad":""# + String(repeating: "x", count: 5_000) + #""}"#
        let large = try await client.send(GatewayFixture.post("/push", padded))
        #expect(large.status == 413)
        #expect(large.errorCode == "body_too_large", "\(large.text)")
        let missing = try await client.send(GatewayFixture.post("/pushes", "{}"))
        #expect(missing.status == 404 && missing.errorCode == "not_found")
        let wrongMethod = try await client.send(HTTPClientRequest(path: "/push"))
        #expect(wrongMethod.status == 405 && wrongMethod.errorCode == "method_not_allowed")
        #expect(wrongMethod.headers["allow"] == "POST")
        let health = try await client.send(HTTPClientRequest(path: "/healthz"))
        #expect(health.status == 200 && health.text == #"{"status":"ok"}"#)
        #expect(try await client.send(HTTPClientRequest(path: "/healthz?probe=1")).status == 200, "the query is ignored")
        for path in ["/pus", "/push/", "/healthz/x", "/", "/healthzz?a"] {
            #expect(try await client.send(HTTPClientRequest(path: path)).status == 404, "\(path)")
        }
        await client.close()
        await gateway.shutdown()
        #expect(delivery.requests.isEmpty)
    }

    @Test func theConfiguredBodyLimitIsTheOneThatApplies() async throws {
        let delivery = FakeDelivery()
        var configuration = GatewayFixture.configuration()
        configuration.maximumBodySize = 8_192
        let gateway = try GatewayFixture.start(configuration, delivery: delivery)
        let client = try GatewayFixture.client(for: gateway.url)

        // A valid push padded with an unknown member (ignored, outside the HMAC) to a size
        // between the contract's default limit and the configured one.
        func padded(_ body: [UInt8], to size: Int) -> [UInt8] {
            let opening = Array(#","pad":""#.utf8)
            let filler = size - body.count - opening.count - 1
            return Array(body.dropLast()) + opening + Array(repeating: UInt8(ascii: "x"), count: filler) + Array(#""}"#.utf8)
        }
        let push = padded(try GatewayFixture.pushRequest().encodedBody(), to: 5_000)
        #expect(push.count == 5_000 && push.count > HermesPushRequest.maximumBodySize)
        let accepted = try await client.send(GatewayFixture.post("/push", push))
        #expect(accepted.status == 200, "\(accepted.text)")
        let registration = padded(HermesRegistration.requestBody(deviceToken: GatewayFixture.deviceToken), to: 5_000)
        let registered = try await client.send(GatewayFixture.post("/register", registration))
        #expect(registered.status == 200, "\(registered.text)")
        let tooLarge = try await client.send(GatewayFixture.post("/push", padded(try GatewayFixture.pushRequest().encodedBody(), to: 8_193)))
        #expect(tooLarge.status == 413 && tooLarge.errorCode == "body_too_large", "\(tooLarge.text)")
        await client.close()
        await gateway.shutdown()
        #expect(delivery.requests.count == 1)
    }

    @Test(arguments: [
        (APNsDeliveryResult.rejected(status: 410, reason: .unregistered, timestamp: 1_700_000_000_000), 410, "device_token_inactive"),
        (.rejected(status: 410, reason: .expiredToken, timestamp: nil), 410, "device_token_inactive"),
        // A 410 says the token is gone whatever reason comes with it (contract §2.3 maps by status).
        (.rejected(status: 410, reason: .unknown("TokenRetired"), timestamp: 1_700_000_000_000), 410, "device_token_inactive"),
        (.rejected(status: 410, reason: .unknown(""), timestamp: nil), 410, "device_token_inactive"),
        (.rejected(status: 400, reason: .badDeviceToken, timestamp: nil), 400, "device_token_rejected"),
        (.rejected(status: 400, reason: .deviceTokenNotForTopic, timestamp: nil), 400, "device_token_rejected"),
        (.rejected(status: 429, reason: .tooManyRequests, timestamp: nil), 429, "rate_limited"),
        (.rejected(status: 503, reason: .serviceUnavailable, timestamp: nil), 503, "apns_unavailable"),
        (.rejected(status: 500, reason: .internalServerError, timestamp: nil), 503, "apns_unavailable"),
        (.rejected(status: 503, reason: .shutdown, timestamp: nil), 503, "apns_unavailable"),
        (.rejected(status: 429, reason: .tooManyProviderTokenUpdates, timestamp: nil), 503, "apns_unavailable"),
        (.rejected(status: 403, reason: .invalidProviderToken, timestamp: nil), 502, "apns_rejected"),
        (.rejected(status: 400, reason: .badTopic, timestamp: nil), 502, "apns_rejected"),
        (.rejected(status: 413, reason: .payloadTooLarge, timestamp: nil), 502, "apns_rejected"),
        (.rejected(status: 400, reason: .unknown("Novel"), timestamp: nil), 502, "apns_rejected"),
        (.rejected(status: 502, reason: .unknown("Gateway"), timestamp: nil), 503, "apns_unavailable"),
        (.unreachable("connection refused"), 503, "apns_unavailable"),
    ])
    func apnsAnswersMapAsTheContractSays(result: APNsDeliveryResult, status: Int, code: String) async throws {
        let delivery = FakeDelivery()
        delivery.answer(with: result)
        let gateway = try GatewayFixture.start(delivery: delivery)
        let client = try GatewayFixture.client(for: gateway.url)
        let response = try await client.send(GatewayFixture.post("/push", try GatewayFixture.pushRequest().encodedBody()))
        await client.close()
        await gateway.shutdown()
        #expect(response.status == status)
        #expect(response.errorCode == code, "\(response.text)")
    }

    @Test func rateLimitsPerDeviceAndInTotalAnswer429BeforeAPNs() async throws {
        let delivery = FakeDelivery()
        let clock = ManualClock()
        var configuration = GatewayFixture.configuration()
        configuration.perDeviceRateLimit = GatewayRateLimit(burst: 2, perSecond: 0.1)
        configuration.totalRateLimit = GatewayRateLimit(burst: 3, perSecond: 1)
        let gateway = try GatewayFixture.start(configuration, delivery: delivery, rateClock: { clock.seconds })
        let client = try GatewayFixture.client(for: gateway.url)
        func push(_ token: String) async throws -> HTTPClientResponse {
            try await client.send(GatewayFixture.post("/push", try GatewayFixture.pushRequest(token: token).encodedBody()))
        }

        #expect(try await push(GatewayFixture.deviceToken).status == 200)
        #expect(try await push(GatewayFixture.deviceToken).status == 200)
        let deviceLimited = try await push(GatewayFixture.deviceToken)
        #expect(deviceLimited.status == 429 && deviceLimited.errorCode == "rate_limited")
        #expect(deviceLimited.headers["retry-after"] == "10")
        #expect(try await push(GatewayFixture.otherDeviceToken).status == 200, "another device has its own budget")
        let totalLimited = try await push(String(repeating: "ef", count: 32))
        #expect(totalLimited.status == 429, "three pushes used the total burst")
        clock.advance(by: 10)
        #expect(try await push(GatewayFixture.deviceToken).status == 200, "both buckets refilled")
        await client.close()
        await gateway.shutdown()
        #expect(delivery.requests.count == 4)
    }

    /// One address that floods is refused on its own budget, before the shared buckets, so a
    /// client at another address still gets its pushes through.
    @Test func aSourceThatFloodsIsRefusedAloneAndOthersKeepTheirBudget() async throws {
        let delivery = FakeDelivery()
        let clock = ManualClock()
        let log = LogSink.memory()
        var configuration = GatewayFixture.configuration()
        configuration.perSourceRateLimit = GatewayRateLimit(burst: 3, perSecond: 0.1)
        let gateway = try GatewayFixture.start(configuration, delivery: delivery, log: log, rateClock: { clock.seconds })
        let client = try GatewayFixture.client(for: gateway.url)
        let tokens = (0..<4).map { String(repeating: String(format: "%02x", 0x10 + $0), count: 32) }
        for token in tokens.prefix(3) {
            let response = try await client.send(GatewayFixture.post("/push", try GatewayFixture.pushRequest(token: token).encodedBody()))
            #expect(response.status == 200, "\(response.text)")
        }
        let limited = try await client.send(GatewayFixture.post("/push", try GatewayFixture.pushRequest(token: tokens[3]).encodedBody()))
        #expect(limited.status == 429 && limited.errorCode == "rate_limited", "\(limited.text)")
        #expect(limited.headers["retry-after"] == "10")
        let registration = try await client.send(
            GatewayFixture.post("/register", HermesRegistration.requestBody(deviceToken: GatewayFixture.deviceToken)))
        #expect(registration.status == 429, "/register shares the source's budget")

        // Another address on loopback is another source, with a full bucket of its own.
        let body = String(decoding: try GatewayFixture.pushRequest(token: tokens[3]).encodedBody(), as: UTF8.self)
        let other = try await onThread {
            try ChildProcess.run("curl", ["-sS", "--http1.1", "--interface", "127.0.0.2", "--max-time", "10", "-o", "/dev/null",
                                          "-w", "%{http_code}", "-H", "content-type: application/json", "--data-binary", body,
                                          "\(gateway.url)/push"])
        }
        #expect(other.stdout == "200", "\(other.stdout) \(other.stderr)")
        clock.advance(by: 10)
        let refilled = try await client.send(GatewayFixture.post("/push", try GatewayFixture.pushRequest(token: tokens[3]).encodedBody()))
        #expect(refilled.status == 200, "the source's bucket refills at its own rate")
        let metrics = try await client.send(HTTPClientRequest(path: "/metrics"))
        await client.close()
        await gateway.shutdown()

        #expect(delivery.requests.count == 5)
        #expect(gateway.metrics.rateLimited(by: .source) == 2)
        #expect(metrics.text.contains(#"push_gateway_rate_limited_total{limit="source"} 2"#), "\(metrics.text)")
        #expect(log.recorded.contains { $0.contains("gateway.limit=source") && $0.contains("gateway.source=127.0.0.1") })
    }

    @Test func registrationsHaveTheirOwnBudgetAndNeverUseUpThePushes() async throws {
        let delivery = FakeDelivery()
        let clock = ManualClock()
        let log = LogSink.memory()
        var configuration = GatewayFixture.configuration()
        configuration.totalRateLimit = GatewayRateLimit(burst: 2, perSecond: 1)
        configuration.registerRateLimit = GatewayRateLimit(burst: 3, perSecond: 0.25)
        let gateway = try GatewayFixture.start(configuration, delivery: delivery, log: log, rateClock: { clock.seconds })
        let client = try GatewayFixture.client(for: gateway.url)
        func registration() async throws -> HTTPClientResponse {
            try await client.send(GatewayFixture.post("/register", HermesRegistration.requestBody(deviceToken: GatewayFixture.deviceToken)))
        }

        // Strangers register (no authorization needed) until their own budget is gone...
        for _ in 0..<3 { #expect(try await registration().status == 200) }
        let limited = try await registration()
        #expect(limited.status == 429 && limited.errorCode == "rate_limited", "\(limited.text)")
        #expect(limited.headers["retry-after"] == "4")
        // ...and the authorized pushes still have all of theirs.
        for token in [GatewayFixture.deviceToken, GatewayFixture.otherDeviceToken] {
            let response = try await client.send(GatewayFixture.post("/push", try GatewayFixture.pushRequest(token: token).encodedBody()))
            #expect(response.status == 200, "\(response.text)")
        }
        let pushLimited = try await client.send(
            GatewayFixture.post("/push", try GatewayFixture.pushRequest(token: String(repeating: "ef", count: 32)).encodedBody()))
        #expect(pushLimited.status == 429, "the pushes' own total still applies")
        #expect(try await registration().status == 429, "pushes gave nothing back to /register")
        clock.advance(by: 4)
        #expect(try await registration().status == 200, "the register bucket refills at its own rate")
        await client.close()
        await gateway.shutdown()
        #expect(delivery.requests.count == 2)
        #expect(log.recorded.contains { $0.contains("gateway.endpoint=register") && $0.contains("gateway.limit=register") })
    }

    @Test func logsNeverHoldCopyFullTokensSecretsOrSignatures() async throws {
        let delivery = FakeDelivery()
        let log = LogSink.memory()
        let gateway = try GatewayFixture.start(delivery: delivery, log: log)
        let client = try GatewayFixture.client(for: gateway.url)

        let signed = try GatewayFixture.pushRequest()
        _ = try await client.send(GatewayFixture.post("/push", signed.encodedBody()))
        let capability = try await register(client, GatewayFixture.deviceToken)
        _ = try await client.send(GatewayFixture.post("/push", try GatewayFixture.pushRequest(capability: capability).encodedBody()))
        var tampered = signed
        tampered.hmac = String(repeating: "0", count: 64)
        _ = try await client.send(GatewayFixture.post("/push", tampered.encodedBody()))
        let leaky = String(decoding: signed.encodedBody(), as: UTF8.self).replacingOccurrences(of: "Approval needed", with: "SECRET PLAN")
        _ = try await client.send(GatewayFixture.post("/push", leaky))
        delivery.answer(with: .rejected(status: 410, reason: .unregistered, timestamp: 1))
        _ = try await client.send(GatewayFixture.post("/push", signed.encodedBody()))
        await client.close()
        await gateway.shutdown()

        let lines = log.recorded
        #expect(lines.count >= 5, "one line per request")
        let forbidden = ["Approval needed", "Hermes needs your approval", "SECRET PLAN", GatewayFixture.deviceToken,
                         GatewayFixture.hmacSecret, GatewayFixture.capabilityKey, try #require(signed.hmac), capability,
                         String(capability.dropFirst(3))]
        for line in lines {
            for text in forbidden { #expect(!line.contains(text), "log line leaks \(text): \(line)") }
        }
        #expect(lines.contains { $0.contains("push.device=abab…abab") && $0.contains("gateway.status=200") })
        #expect(lines.contains { $0.contains("gateway.outcome=invalid_hmac") })
        #expect(lines.contains { $0.contains("gateway.field=title") })
        #expect(lines.contains { $0.contains("apns.reason=Unregistered") && $0.contains("gateway.status=410") })
    }

    @Test func eachPushIsLoggedAsOneLineOfFieldsInKeyOrder() async throws {
        let delivery = FakeDelivery()
        let log = LogSink.memory()
        let gateway = try GatewayFixture.start(delivery: delivery, log: log)
        let client = try GatewayFixture.client(for: gateway.url)
        let sent = try await client.send(GatewayFixture.post("/push", try GatewayFixture.pushRequest().encodedBody()))
        delivery.answer(with: .rejected(status: 410, reason: .unregistered, timestamp: 1))
        _ = try await client.send(GatewayFixture.post("/push", try GatewayFixture.pushRequest(type: .error, environment: .production).encodedBody()))
        delivery.answer(with: .unreachable("connect failed"))
        _ = try await client.send(GatewayFixture.post("/push", try GatewayFixture.pushRequest().encodedBody()))
        // A reason is APNs' (or a mock fault's) text: it must not start a line or a field of its own.
        delivery.answer(with: .rejected(status: 400, reason: .unknown("Bad\nINJECTED gateway.status=200 x"), timestamp: nil))
        _ = try await client.send(GatewayFixture.post("/push", try GatewayFixture.pushRequest().encodedBody()))
        await client.close()
        await gateway.shutdown()

        let apnsID = try #require(sent.text.split(separator: "\"").dropFirst(3).first.map(String.init))
        let ids = delivery.requests.map(\.request.apnsID)
        try #require(ids.count == 4 && ids[0] == apnsID)
        // Everything after the timestamp: the level, the label, the fields sorted by key, the message.
        let lines = log.recorded.map { String($0.drop { $0 != " " }.dropFirst()) }
        #expect(lines == [
            "info push-gateway: gateway.endpoint=push gateway.outcome=ok gateway.status=200 push.apns-id=\(ids[0]) "
                + "push.auth=hmac push.device=abab…abab push.env=sandbox push.type=approval push sent\n",
            "info push-gateway: apns.reason=Unregistered apns.status=410 gateway.endpoint=push gateway.outcome=device_token_inactive "
                + "gateway.status=410 push.apns-id=\(ids[1]) push.auth=hmac push.device=abab…abab push.env=production push.type=error push failed\n",
            "info push-gateway: apns.error=\"connect failed\" gateway.endpoint=push gateway.outcome=apns_unavailable gateway.status=503 "
                + "push.apns-id=\(ids[2]) push.auth=hmac push.device=abab…abab push.env=sandbox push.type=approval push failed\n",
            #"info push-gateway: apns.reason="Bad\nINJECTED gateway.status=200 x" apns.status=400 gateway.endpoint=push "#
                + "gateway.outcome=apns_rejected gateway.status=502 push.apns-id=\(ids[3]) push.auth=hmac push.device=abab…abab "
                + "push.env=sandbox push.type=approval push failed\n",
        ])
        #expect(log.recorded.allSatisfy { $0.filter { $0 == "\n" }.count == 1 }, "one event, one line")
    }

    @Test func metricsCountRequestsAPNsReasonsAndLatency() async throws {
        let delivery = FakeDelivery()
        delivery.answer(after: .milliseconds(60))
        let gateway = try GatewayFixture.start(delivery: delivery)
        let client = try GatewayFixture.client(for: gateway.url)
        _ = try await client.send(GatewayFixture.post("/push", try GatewayFixture.pushRequest().encodedBody()))
        delivery.answer(with: .rejected(status: 410, reason: .unregistered, timestamp: nil))
        _ = try await client.send(GatewayFixture.post("/push", try GatewayFixture.pushRequest(type: .error).encodedBody()))
        _ = try await client.send(GatewayFixture.post("/push", "{}"))
        let metrics = try await client.send(HTTPClientRequest(path: "/metrics"))
        await client.close()
        await gateway.shutdown()

        let text = metrics.text
        #expect(metrics.headers["content-type"]?.hasPrefix("text/plain") == true)
        #expect(text.contains(#"push_gateway_requests_total{endpoint="push",outcome="ok"} 1"#), "\(text)")
        #expect(text.contains(#"push_gateway_requests_total{endpoint="push",outcome="device_token_inactive"} 1"#))
        #expect(text.contains(#"push_gateway_requests_total{endpoint="push",outcome="invalid_request"} 1"#))
        #expect(text.contains(#"push_gateway_apns_responses_total{outcome="accepted",reason=""} 1"#))
        #expect(text.contains(#"push_gateway_apns_responses_total{outcome="rejected",reason="Unregistered"} 1"#))
        #expect(text.contains("push_gateway_push_duration_seconds_count 2"))
        // APNs (the fake) took 60 ms or more for each of the two pushes that reached it.
        #expect(text.contains("push_gateway_apns_duration_seconds_count 2"))
        #expect(text.contains(#"push_gateway_apns_duration_seconds_bucket{le="0.05"} 0"#), "\(text)")
        #expect(text.contains(#"push_gateway_apns_duration_seconds_bucket{le="+Inf"} 2"#), "\(text)")
        #expect(text.contains(#"push_gateway_push_duration_seconds_bucket{le="0.05"} 0"#), "\(text)")
    }

    @Test func answersThatWentToAPNsSayHowLongAPNsTook() async throws {
        let delivery = FakeDelivery()
        delivery.answer(after: .milliseconds(60))
        let gateway = try GatewayFixture.start(delivery: delivery)
        let client = try GatewayFixture.client(for: gateway.url)
        let clock = ContinuousClock()
        var accepted: HTTPClientResponse?
        let roundTrip = try await clock.measure {
            accepted = try await client.send(GatewayFixture.post("/push", try GatewayFixture.pushRequest().encodedBody()))
        }
        delivery.answer(with: .rejected(status: 410, reason: .unregistered, timestamp: nil))
        let rejected = try await client.send(GatewayFixture.post("/push", try GatewayFixture.pushRequest().encodedBody()))
        let refused = try await client.send(GatewayFixture.post("/push", try GatewayFixture.pushRequest(secret: "not-the-secret").encodedBody()))
        let health = try await client.send(HTTPClientRequest(path: "/healthz"))
        await client.close()
        await gateway.shutdown()

        // `apns;dur=<ms>` with microseconds: at least the 60 ms APNs took, at most the whole round trip.
        let timing = try #require(accepted?.headers["server-timing"])
        let match = try #require(timing.wholeMatch(of: /apns;dur=(\d+)\.(\d{3})/))
        let milliseconds = try #require(Double("\(match.1).\(match.2)"))
        #expect(milliseconds >= 60, "\(timing)")
        #expect(milliseconds <= Double(roundTrip.components.seconds) * 1000 + Double(roundTrip.components.attoseconds) / 1e15, "\(timing)")
        #expect(rejected.status == 410 && rejected.headers["server-timing"]?.hasPrefix("apns;dur=") == true)
        // Nothing reached APNs for these.
        #expect(refused.status == 403 && refused.headers["server-timing"] == nil)
        #expect(health.headers["server-timing"] == nil)
    }

    private func register(_ client: HTTP2Client, _ token: String) async throws -> String {
        let response = try await client.send(GatewayFixture.post("/register", HermesRegistration.requestBody(deviceToken: token)))
        #expect(response.status == 200, "\(response.text)")
        return try HermesRegistration.capability(fromResponseBody: response.body)
    }
}

/// The error paths over HTTP/1.1, as the plugin's urllib speaks it (curl as the independent client).
@Suite(.timeLimit(.minutes(1)))
struct GatewayHTTP1Tests {
    @Test func oversizedAndMalformedBodiesAnswerJSONOverHTTP1() async throws {
        let delivery = FakeDelivery()
        let gateway = try GatewayFixture.start(delivery: delivery)
        let url = gateway.url
        let results = try await onThread { () throws -> [ChildResult] in
            let large = #"{"pad":""# + String(repeating: "x", count: 5_000) + #""}"#
            return try [large, "{not json"].map { body in
                try ChildProcess.run("curl", ["-sS", "--http1.1", "--max-time", "10", "-o", "-", "-w", "\n%{http_code} %{http_version}",
                                      "-H", "content-type: application/json", "--data-binary", body, "\(url)/push"])
            }
        }
        await gateway.shutdown()

        #expect(results[0].stdout.hasSuffix("413 1.1"), "\(results[0].stdout) \(results[0].stderr)")
        #expect(results[0].stdout.hasPrefix(#"{"error":"body_too_large","#))
        #expect(results[1].stdout.hasSuffix("400 1.1"), "\(results[1].stdout) \(results[1].stderr)")
        #expect(results[1].stdout.hasPrefix(#"{"error":"invalid_request","#))
        #expect(delivery.requests.isEmpty)
    }

    /// Sends each of `requests` on its own connection and returns everything up to the
    /// gateway's close (python, so the bytes are exactly these).
    static func rawExchanges(port: Int, _ requests: [String]) async throws -> [String] {
        let script = #"""
        import json, socket, sys
        answers = []
        for raw in sys.argv[2:]:
            s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
            s.sendall(raw.encode("latin-1"))
            data = b""
            try:
                while True:
                    chunk = s.recv(65536)
                    if not chunk:
                        break
                    data += chunk
            except (socket.timeout, ConnectionResetError):
                data += b"<<no close>>"
            s.close()
            answers.append(data.decode("latin-1"))
        print(json.dumps(answers))
        """#
        let result = try await onThread { try ChildProcess.run("python3", ["-c", script, String(port)] + requests, timeout: 30) }
        guard result.status == 0, let line = result.stdout.split(separator: "\n").last else {
            throw ChildProcessError(description: "python: \(result.stdout) \(result.stderr)")
        }
        return try JSONDecoder().decode([String].self, from: Data(line.utf8))
    }

    /// What the transport refuses before the gateway's routes (malformed HTTP/1.1, an
    /// unsupported version, headers over 16 KB, a request not sent whole in time) is answered
    /// in the gateway's JSON error shape, with the transport's status, and counted.
    @Test func transportRefusalsAnswerTheGatewaysJSON() async throws {
        let delivery = FakeDelivery()
        var configuration = GatewayFixture.configuration()
        configuration.requestReadTimeout = .milliseconds(300)
        let gateway = try GatewayFixture.start(configuration, delivery: delivery)
        let port = try #require(gateway.url.split(separator: ":").last.flatMap { Int($0) })

        let answers = try await Self.rawExchanges(port: port, [
            "G@T /push HTTP/1.1\r\nHost: x\r\n\r\n",
            "POST /push HTTP/1.9\r\nHost: x\r\ncontent-length: 2\r\n\r\n{}",
            "POST /push HTTP/1.1\r\nHost: x\r\nx-big: " + String(repeating: "a", count: 20_000) + "\r\n\r\n",
            "POST /push HTTP/1.1\r\nHost: x\r\ncontent-length: 400\r\n\r\n{\"device_token\"",
        ])
        await gateway.shutdown()

        let expected = [(400, "invalid_request", "other"), (505, "http_version_not_supported", "push"),
                        (431, "headers_too_large", "push"), (408, "request_timeout", "push")]
        #expect(answers.count == expected.count)
        for (answer, (status, code, endpoint)) in zip(answers, expected) {
            #expect(answer.hasPrefix("HTTP/1.1 \(status) "), "\(answer)")
            #expect(answer.contains("content-type: application/json\r\n"), "\(answer)")
            #expect(answer.contains("connection: close\r\n"), "\(answer)")
            let body = String(answer[(answer.range(of: "\r\n\r\n")?.upperBound ?? answer.endIndex)...])
            #expect(body.hasPrefix(#"{"error":"\#(code)","message":""#), "\(answer)")
            #expect(!body.contains("aaaa") && !body.contains("device_token"), "the message never quotes the request: \(body)")
            #expect(gateway.metrics.requests(endpoint: endpoint, outcome: code) == 1, "\(code)")
        }
        #expect(delivery.requests.isEmpty)
    }

    /// The listener announces the gateway's stream limit and closes connections past its
    /// connection limit at once.
    @Test func theListenerTakesTheGatewaysConnectionAndStreamLimits() async throws {
        var configuration = GatewayFixture.configuration()
        configuration.maxConnections = 2
        configuration.maxConcurrentStreams = 7
        let gateway = try GatewayFixture.start(configuration, delivery: FakeDelivery())
        let port = try #require(gateway.url.split(separator: ":").last.flatMap { Int($0) })
        let script = #"""
        import json, socket, sys
        import h2.config, h2.connection, h2.events
        port = int(sys.argv[1])
        first = socket.create_connection(("127.0.0.1", port), timeout=10)
        h2c = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
        h2c.initiate_connection()
        first.sendall(h2c.data_to_send())
        streams = None
        while streams is None:
            data = first.recv(65536)
            if not data:
                break
            for event in h2c.receive_data(data):
                if isinstance(event, h2.events.RemoteSettingsChanged):
                    streams = h2c.remote_settings.max_concurrent_streams
        second = socket.create_connection(("127.0.0.1", port), timeout=10)
        second.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        served = second.recv(65536).startswith(b"HTTP/1.1 200")
        third = socket.create_connection(("127.0.0.1", port), timeout=10)
        try:
            refused = third.recv(65536) == b""
        except ConnectionResetError:
            refused = True
        except socket.timeout:
            refused = False
        print(json.dumps({"streams": streams, "served": served, "refused": refused}))
        """#
        let result = try await onThread { try ChildProcess.run("python3", ["-c", script, String(port)], timeout: 30) }
        await gateway.shutdown()

        #expect(result.stdout.hasSuffix(#"{"streams": 7, "served": true, "refused": true}"# + "\n"), "\(result.stdout) \(result.stderr)")
    }

    /// One address cannot hold every connection: past `max_connections_per_source` its next
    /// one is closed at accept, while another address is still served, and /metrics says why.
    @Test func oneSourceCannotHoldEveryConnection() async throws {
        var configuration = GatewayFixture.configuration()
        configuration.maxConnections = 10
        configuration.maxConnectionsPerSource = 2
        let gateway = try GatewayFixture.start(configuration, delivery: FakeDelivery())
        let port = try #require(gateway.url.split(separator: ":").last.flatMap { Int($0) })
        let script = #"""
        import json, socket, sys, time
        port = int(sys.argv[1])
        def served(source):
            s = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            try:
                return s, s.recv(65536).startswith(b"HTTP/1.1 200")
            except (ConnectionResetError, socket.timeout):
                return s, False
        held = [served("127.0.0.1") for _ in range(2)]
        third = served("127.0.0.1")
        other = served("127.0.0.2")
        held[0][0].close()
        # The server forgets a connection once it has seen it close; until then a new one
        # from the same address is refused too, and counted.
        retries, again = 0, False
        while retries < 50:
            s, again = served("127.0.0.1")
            if again:
                break
            s.close()
            retries += 1
            time.sleep(0.1)
        m = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=("127.0.0.3", 0))
        m.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        metrics = b""
        while chunk := m.recv(65536):
            metrics += chunk
        print(json.dumps({"held": [ok for _, ok in held], "third": third[1], "other": other[1], "again": again,
                          "retries": retries, "metrics": metrics.decode()}))
        """#
        let result = try await onThread { try ChildProcess.run("python3", ["-c", script, String(port)], timeout: 60) }
        await gateway.shutdown()

        struct Outcome: Decodable { var held: [Bool]; var third, other, again: Bool; var retries: Int; var metrics: String }
        let line = try #require(result.stdout.split(separator: "\n").last, "\(result.stderr)")
        let outcome = try JSONDecoder().decode(Outcome.self, from: Data(line.utf8))
        #expect(outcome.held == [true, true] && !outcome.third, "a third connection from one source is refused")
        #expect(outcome.other, "another source is still served")
        #expect(outcome.again, "a closed connection gives its source a place back")
        let refused = #"push_gateway_connections_refused_total{limit="source"} \#(1 + outcome.retries)"#
        #expect(outcome.metrics.contains(refused), "\(outcome.metrics)")
        #expect(outcome.metrics.contains(#"push_gateway_connections_refused_total{limit="total"} 0"#), "\(outcome.metrics)")
    }
}
