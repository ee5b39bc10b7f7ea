import APNsCore
import Foundation
import HTTPTransport
import JWTVerify
import MockAPNs
import PushTestSupport
import StrictJSON
import Testing

/// The assembled mock, driven over real HTTP/2 by our own client.
@Suite(.timeLimit(.minutes(3)))
struct MockAPNsServerTests {
    static let certs = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("certs").path
    static let deviceToken = String(repeating: "ab", count: 32)

    static func providerToken(issuedAt: Date = Date()) throws -> String {
        let key = try ES256PrivateKey(contentsOfFile: "\(certs)/AuthKey_ABC123DEFG.p8")
        return try JWTSigner(key: key, keyID: "ABC123DEFG").makeProviderToken(teamID: "TEAM000001", issuedAt: issuedAt)
    }

    static func client(for url: String, trust: String?) throws -> HTTP2Client {
        let address = url.split(separator: "/").last.map(String.init) ?? ""
        let colon = address.lastIndex(of: ":") ?? address.endIndex
        let host = String(address[..<colon]), port = Int(address[address.index(after: colon)...]) ?? 0
        var configuration = HTTP2ClientConfiguration(host: host, port: port,
                                                     tls: trust.map { .makeClientConfiguration(trustRootsPath: $0) })
        configuration.serverName = "localhost"
        return try HTTP2Client(configuration: configuration)
    }

    static func push(token: String?, topic: String = "com.example.app", device: String = deviceToken,
                     body: String = #"{"aps":{"alert":"hi"}}"#, extra: [(String, String)] = []) -> HTTPClientRequest {
        var headers: HTTPHeaders = ["apns-topic": topic, "apns-push-type": "alert"]
        if let token { headers.add(name: "authorization", value: "bearer \(token)") }
        for (name, value) in extra { headers.add(name: name, value: value) }
        return HTTPClientRequest(method: "POST", path: "/3/device/\(device)", headers: headers, body: Array(body.utf8))
    }

    @Test func aValidPushIsAcceptedEchoedAndCapturedWithoutItsToken() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Self.certs)
        defer { mock.stop() }
        let token = try Self.providerToken()
        let client = try Self.client(for: mock.sandboxURL, trust: mock.trustRootsPath)
        let apnsID = "0f3c9a7e-51d2-4b0e-8000-00000000002a"

        let response = try await client.send(Self.push(token: token, extra: [("apns-id", apnsID)]))
        await client.close()

        #expect(response.status == 200)
        #expect(response.headers["apns-id"] == apnsID)
        #expect(response.headers["apns-unique-id"].map(APNsIDGenerator.isCanonicalUUID) == true, "sandbox sends apns-unique-id")
        #expect(response.body.isEmpty)
        let captured = await mock.capture.wait(for: CaptureFilter(apnsID: apnsID), count: 1, timeout: .seconds(20))
        #expect(captured.isSatisfied)
        let record = try #require(captured.records.first)
        #expect(record.environment == .sandbox && record.topic == "com.example.app" && record.keyID == "ABC123DEFG")
        #expect(record.outcome.status == 200)
        let signature = String(token.split(separator: ".")[2])
        #expect(!record.headers.contains { $0.value.contains(signature) }, "the signature is never captured")
    }

    @Test func rejectionsCarryTheReasonAsJSONAndProductionSendsNoUniqueID() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Self.certs)
        defer { mock.stop() }
        let client = try Self.client(for: mock.productionURL, trust: mock.trustRootsPath)

        let missing = try await client.send(Self.push(token: nil))
        let badDevice = try await client.send(Self.push(token: try Self.providerToken(), device: "xyz"))
        await client.close()

        #expect(missing.status == 403)
        #expect(missing.headers["content-type"] == "application/json")
        #expect(String(decoding: missing.body, as: UTF8.self) == #"{"reason":"MissingProviderToken"}"#)
        #expect(missing.headers["apns-id"].map(APNsIDGenerator.isCanonicalUUID) == true)
        #expect(missing.headers["apns-unique-id"] == nil)
        #expect(badDevice.status == 400)
        #expect(String(decoding: badDevice.body, as: UTF8.self) == #"{"reason":"BadDeviceToken"}"#)
        #expect(mock.metrics.rejectedPushes(.missingProviderToken) == 1)
    }

    @Test func faultRulesOverrideTheAnswerAndAreCaptured() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Self.certs)
        defer { mock.stop() }
        try mock.faults.add(FaultRule(id: "down", count: 1, action: .unavailable(.serviceUnavailable)))
        let client = try Self.client(for: mock.productionURL, trust: mock.trustRootsPath)
        let token = try Self.providerToken()

        let first = try await client.send(Self.push(token: token))
        let second = try await client.send(Self.push(token: token))
        await client.close()

        #expect(first.status == 503)
        #expect(String(decoding: first.body, as: UTF8.self) == #"{"reason":"ServiceUnavailable"}"#)
        #expect(second.status == 200, "the rule fired once")
        let records = mock.capture.records()
        #expect(records.count == 2)
        #expect(records.first?.faults.first?.hasPrefix("down") == true)
    }

    /// With an access token, every control-API request but GET /healthz must carry it as a
    /// bearer token; one without it is refused before anything is read or changed.
    @Test func theControlAPIRequiresItsAccessTokenWhenOneIsSet() async throws {
        let secret = "control-token-for-tests-0123456789"
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Self.certs) {
            $0.server.tlsEnabled = false
            $0.server.controlAccessToken = secret
        }
        defer { mock.stop() }
        let control = try Self.client(for: mock.controlURL, trust: nil)
        let apns = try Self.client(for: mock.productionURL, trust: nil)
        #expect(try await apns.send(Self.push(token: try Self.providerToken())).status == 200)

        func send(_ method: String, _ path: String, authorization: String?) async throws -> (status: Int, body: String, challenge: String?) {
            let headers: HTTPHeaders = authorization.map { ["authorization": $0] } ?? [:]
            let answer = try await control.send(HTTPClientRequest.control(method, path: path, headers: headers))
            return (answer.status, String(decoding: answer.body, as: UTF8.self), answer.headers["www-authenticate"])
        }
        #expect(try await send("GET", "/healthz", authorization: nil).status == 200, "health checks hold no secret")
        for authorization in [nil, "Bearer wrong-token-0123456789abcdef", "Basic \(secret)", "Bearer", secret, "Bearer \(secret)x"] {
            let refused = try await send("DELETE", "/pushes", authorization: authorization)
            #expect(refused.status == 401, "\(authorization ?? "none"): \(refused.body)")
            #expect(refused.body == #"{"error":"the control API needs its access token: send authorization: Bearer <token>"}"# + "\n")
            #expect(refused.challenge == #"Bearer realm="apns-mock control API""#)
        }
        #expect(try await send("GET", "/pushes?unknown=1", authorization: nil).status == 401, "the query is not read first")
        let listed = try await send("GET", "/pushes", authorization: "Bearer \(secret)")
        #expect(listed.status == 200 && listed.body.hasPrefix(#"{"count":1,"#), "the refused DELETE cleared nothing: \(listed.body)")
        #expect(try await send("GET", "/registry", authorization: "bearer \(secret)").status == 200, "the scheme is case-insensitive")
        await control.close()
        await apns.close()
    }

    @Test func anAccessTokenShorterThanSixteenBytesOrWithSpacesIsRefused() throws {
        for token in ["short", "sixteen bytes with spaces", String(repeating: "x", count: 4097)] {
            var settings = MockServerSettings.makeDefault(certsDirectory: Self.certs)
            settings.controlAccessToken = token
            #expect { try settings.validate() } throws: { "\($0)".contains("server.control_token: expected 16 to 4096 visible ASCII characters") }
        }
    }

    @Test func theControlAPIListsWaitsClearsAndSetsFaults() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Self.certs) { $0.server.tlsEnabled = false }
        defer { mock.stop() }
        #expect(mock.productionURL.hasPrefix("http://"))
        let control = try Self.client(for: mock.controlURL, trust: nil)
        let apns = try Self.client(for: mock.productionURL, trust: nil)

        let health = try await control.send(HTTPClientRequest(path: "/healthz"))
        #expect(health.status == 200 && String(decoding: health.body, as: UTF8.self) == "{\"status\":\"ok\"}\n")

        async let waited = control.send(HTTPClientRequest(path: "/pushes/wait?count=2&timeout=10&topic=com.example.app"))
        _ = try await apns.send(Self.push(token: try Self.providerToken()))
        _ = try await apns.send(Self.push(token: nil))
        let wait = try await waited
        #expect(wait.status == 200)
        let waitBody = String(decoding: wait.body, as: UTF8.self)
        #expect(waitBody.hasPrefix("{\"count\":2,\"satisfied\":true,\"pushes\":[{\"v\":2,"), "\(waitBody.prefix(200))")

        let rejected = try await control.send(HTTPClientRequest(path: "/pushes?outcome=rejected"))
        #expect(String(decoding: rejected.body, as: UTF8.self).hasPrefix("{\"count\":1,"))

        let fault = #"{"id":"boom","action":{"type":"status","reason":"InternalServerError"}}"#
        let added = try await control.send(HTTPClientRequest.control("POST", path: "/faults", body: Array(fault.utf8)))
        #expect(added.status == 201)
        let faulted = try await apns.send(Self.push(token: try Self.providerToken()))
        #expect(faulted.status == 500)

        let bad = try await control.send(HTTPClientRequest.control("PUT", path: "/faults", body: Array("[{\"action\":{}}]".utf8)))
        #expect(bad.status == 400)
        #expect(String(decoding: bad.body, as: UTF8.self).contains("faults[0].action"))

        let cleared = try await control.send(HTTPClientRequest.control("DELETE", path: "/pushes"))
        #expect(cleared.status == 204)
        #expect(mock.capture.count == 0)
        let timedOut = try await control.send(HTTPClientRequest(path: "/pushes/wait?count=1&timeout=0.2"))
        #expect(timedOut.status == 408)

        let metrics = try await control.send(HTTPClientRequest(path: "/metrics"))
        #expect(String(decoding: metrics.body, as: UTF8.self).contains(#"reason="MissingProviderToken"} 1"#))
        await control.close()
        await apns.close()
    }

    /// A body past the transport's 64 KiB is not read to its end, yet the push is judged in
    /// APNs' order: method, path and credentials come first, then `PayloadTooLarge`; the
    /// capture keeps what the headers said.
    @Test func anOversizedBodyIsJudgedInValidationOrder() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Self.certs) { $0.server.tlsEnabled = false }
        defer { mock.stop() }
        let token = try Self.providerToken()
        let huge = #"{"aps":{"alert":""# + String(repeating: "x", count: 70_000) + #""}}"#
        func send(_ request: HTTPClientRequest) async throws -> (Int, String) {
            let client = try Self.client(for: mock.productionURL, trust: nil)
            let response = try await client.send(request)
            await client.close()
            return (response.status, String(decoding: response.body, as: UTF8.self))
        }
        var get = Self.push(token: token, body: huge)
        get.method = "GET"
        #expect(try await send(get) == (405, #"{"reason":"MethodNotAllowed"}"#))
        #expect(try await send(Self.push(token: nil, body: huge)) == (403, #"{"reason":"MissingProviderToken"}"#))
        #expect(try await send(Self.push(token: token, body: huge)) == (413, #"{"reason":"PayloadTooLarge"}"#))

        let records = mock.capture.records(matching: .all)
        #expect(records.map(\.outcome.reason) == [.methodNotAllowed, .missingProviderToken, .payloadTooLarge])
        let tooLarge = try #require(records.last)
        #expect(tooLarge.deviceToken?.hex == Self.deviceToken && tooLarge.topic == "com.example.app")
        #expect(tooLarge.token?.fingerprint != nil && tooLarge.teamID == MockConfiguration.defaultTeamID, "\(String(describing: tooLarge.token))")
    }

    /// A header list past the listener's 8000 bytes is answered as APNs answers a rejection:
    /// 431 with `content-type: application/json`, `{"reason":…}`, the echoed `apns-id` and
    /// (sandbox) an `apns-unique-id`. It is captured with the headers that fit, and the
    /// connection carries on.
    @Test func aHeaderListOverTheLimitGetsAJSONReasonAndIsCaptured() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Self.certs) { $0.server.tlsEnabled = false }
        defer { mock.stop() }
        let token = try Self.providerToken()
        let apnsID = "0f3c9a7e-51d2-4b0e-8000-0000000000a1"
        let client = try Self.client(for: mock.sandboxURL, trust: nil)
        #expect(try await client.send(Self.push(token: token)).status == 200)

        let big = Self.push(token: token, extra: [("apns-id", apnsID), ("x-pad", String(repeating: "p", count: 8000)), ("x-after", "1")])
        let response = try await client.send(big)
        let after = try await client.send(Self.push(token: token))
        await client.close()

        #expect(response.status == 431)
        #expect(response.headers["content-type"] == "application/json")
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"reason":"RequestHeaderFieldsTooLarge"}"#)
        #expect(response.headers["apns-id"] == apnsID)
        #expect(response.headers["apns-unique-id"].map(APNsIDGenerator.isCanonicalUUID) == true)
        #expect(after.status == 200, "the connection is still served")

        let records = mock.capture.records(matching: CaptureFilter(apnsID: apnsID))
        let record = try #require(records.first)
        #expect(records.count == 1 && mock.capture.count == 3)
        #expect(record.outcome.status == 431 && record.outcome.reason == .requestHeaderFieldsTooLarge)
        #expect(record.method == "POST" && record.deviceToken?.hex == Self.deviceToken)
        #expect(record.headers["apns-topic"] == "com.example.app" && record.headers["x-pad"] == nil && record.headers["x-after"] == nil)
        #expect(record.token?.fingerprint != nil, "authorization came before the pad")
        #expect(record.payload.isEmpty)
        #expect(record.lintWarnings.map(\.code) == [PushLintCode.headerListTooLarge])
        #expect(mock.metrics.rejectedPushes(.requestHeaderFieldsTooLarge) == 1)
    }

    /// `PUT /devices` leaves unknown tokens accepted unless `acceptUnknownDevices=false` says
    /// otherwise; `PUT /keys` holds key topics to the apps, as the configuration file does.
    /// `PUT /devices` and `PUT /keys` sent at the same moment each keep the other's change:
    /// reading the registry, changing a part and replacing the whole in separate steps would
    /// let one of two answered 200 be undone.
    @Test func concurrentPutsOfDevicesAndKeysKeepBoth() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Self.certs) { $0.server.tlsEnabled = false }
        defer { mock.stop() }
        let devicesClient = try Self.client(for: mock.controlURL, trust: nil)
        let keysClient = try Self.client(for: mock.controlURL, trust: nil)
        func key(_ id: String) throws -> JSONValue {
            ["key_id": .string(id), "team_id": "TEAM000001",
             "public_key": .string(try String(contentsOfFile: Self.certs + "/AuthKey_\(id).pub.pem", encoding: .utf8))]
        }
        let keySets: [JSONValue] = [.array([try key("ABC123DEFG")]), .array([try key("ABC123DEFG"), try key("XYZ987WXYZ")])]
        var lost: [String] = []
        for round in 0..<150 {
            let device = String(format: "%064x", round + 1)
            let devices = Array(#"[{"token":"\#(device)","bundle_id":"com.example.app","environment":"production"}]"#.utf8)
            let keys = Array(keySets[round % 2].description.utf8)
            async let putDevices = devicesClient.send(HTTPClientRequest.control("PUT", path: "/devices", body: devices))
            async let putKeys = keysClient.send(HTTPClientRequest.control("PUT", path: "/keys", body: keys))
            let (devicesAnswer, keysAnswer) = try await (putDevices, putKeys)
            #expect(devicesAnswer.status == 200 && keysAnswer.status == 200)
            let registry = mock.registry
            if registry.devices[try #require(DeviceToken(device))] == nil { lost.append("round \(round): the devices") }
            if registry.keys.count != round % 2 + 1 { lost.append("round \(round): the keys") }
        }
        await devicesClient.close()
        await keysClient.close()
        #expect(lost.isEmpty, "\(lost)")
    }

    @Test func putDevicesCanTurnUnknownTokensAwayAndPutKeysChecksTopics() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Self.certs) { $0.server.tlsEnabled = false }
        defer { mock.stop() }
        let control = try Self.client(for: mock.controlURL, trust: nil)
        let apns = try Self.client(for: mock.productionURL, trust: nil)
        let token = try Self.providerToken()
        let listed = String(repeating: "cd", count: 32)
        let devices = Array(#"[{"token":"\#(listed)","bundle_id":"com.example.app","environment":"production"}]"#.utf8)

        #expect(try await control.send(HTTPClientRequest.control("PUT", path: "/devices", body: devices)).status == 200)
        #expect(try await apns.send(Self.push(token: token)).status == 200, "still accepted: the flag was not asked for")
        let strict = try await control.send(HTTPClientRequest.control("PUT", path: "/devices?accept_unknown_devices=false", body: devices))
        #expect(strict.status == 200)
        let unknown = try await apns.send(Self.push(token: token))
        #expect(unknown.status == 400 && String(decoding: unknown.body, as: UTF8.self) == #"{"reason":"BadDeviceToken"}"#)
        #expect(try await apns.send(Self.push(token: token, device: listed)).status == 200)
        // GET /registry is where the flag shows: GET /devices lists only the devices.
        let registry = try await control.send(HTTPClientRequest(path: "/registry"))
        guard case let .object(shown)? = try? JSONParser.parse(registry.body, maximumDepth: 16) else {
            Issue.record("GET /registry answered \(registry.status): \(String(decoding: registry.body, as: UTF8.self))")
            return
        }
        #expect(shown["accept_unknown_devices"] == .bool(false))
        #expect(shown["apps"] == ["com.example.app"])
        guard case let .array(shownDevices)? = shown["devices"], case let .object(device)? = shownDevices.first else {
            Issue.record("no devices in \(shown)")
            return
        }
        #expect(shownDevices.count == 1 && device["token"] == .string(listed))
        let bad = try await control.send(HTTPClientRequest.control("PUT", path: "/devices?accept_unknown_devices=maybe", body: devices))
        #expect(bad.status == 400 && String(decoding: bad.body, as: UTF8.self).contains("accept_unknown_devices: expected true or false"))
        #expect(try await control.send(HTTPClientRequest.control("PUT", path: "/devices?accept_unknown_devices=true", body: devices)).status == 200)
        #expect(try await apns.send(Self.push(token: token)).status == 200)

        let pem = try String(contentsOfFile: Self.certs + "/AuthKey_ABC123DEFG.pub.pem", encoding: .utf8)
        let keys: JSONValue = [["key_id": "ABC123DEFG", "team_id": "TEAM000001", "public_key": .string(pem), "topics": ["com.nonexistent.app"]]]
        let stray = try await control.send(HTTPClientRequest.control("PUT", path: "/keys", body: Array(keys.description.utf8)))
        #expect(stray.status == 400 && String(decoding: stray.body, as: UTF8.self).contains("keys[0].topics[0]"),
                "\(String(decoding: stray.body, as: UTF8.self))")

        // A key taken away refuses its tokens at once, on a connection already using one too.
        let otherKeyOnly: JSONValue = [["key_id": "XYZ987WXYZ", "team_id": "TEAM000001",
                                        "public_key": .string(try String(contentsOfFile: Self.certs + "/AuthKey_XYZ987WXYZ.pub.pem", encoding: .utf8))]]
        #expect(try await control.send(HTTPClientRequest.control("PUT", path: "/keys", body: Array(otherKeyOnly.description.utf8))).status == 200)
        let revoked = try await apns.send(Self.push(token: token))
        #expect(revoked.status == 403 && String(decoding: revoked.body, as: UTF8.self) == #"{"reason":"InvalidProviderToken"}"#)
        await control.close()
        await apns.close()
    }

    /// `PUT /keys` adding a topic to a topic-specific key: connections bound before it keep
    /// the key's old topics (APNs binds a connection's topics on first use), and a new
    /// connection pushes to the added topic.
    @Test func aTopicAddedWithPutKeysWaitsForANewConnection() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Self.certs) {
            $0.server.tlsEnabled = false
            $0.registry.bundleIDs.insert("com.example.other")
            $0.registry.keys["ABC123DEFG"]?.topics = ["com.example.app"]
        }
        defer { mock.stop() }
        let control = try Self.client(for: mock.controlURL, trust: nil)
        let open = try Self.client(for: mock.productionURL, trust: nil)
        let token = try Self.providerToken()
        #expect(try await open.send(Self.push(token: token)).status == 200)

        let pem = try String(contentsOfFile: Self.certs + "/AuthKey_ABC123DEFG.pub.pem", encoding: .utf8)
        let keys: JSONValue = [["key_id": "ABC123DEFG", "team_id": "TEAM000001", "public_key": .string(pem),
                                "topics": ["com.example.app", "com.example.other"]]]
        #expect(try await control.send(HTTPClientRequest.control("PUT", path: "/keys", body: Array(keys.description.utf8))).status == 200)
        let added = try await open.send(Self.push(token: token, topic: "com.example.other"))
        let kept = try await open.send(Self.push(token: token))
        let fresh = try Self.client(for: mock.productionURL, trust: nil)
        let onNewConnection = try await fresh.send(Self.push(token: token, topic: "com.example.other"))
        await control.close()
        await open.close()
        await fresh.close()

        #expect(added.status == 403 && String(decoding: added.body, as: UTF8.self) == #"{"reason":"InvalidProviderToken"}"#)
        #expect(kept.status == 200)
        #expect(onNewConnection.status == 200)
    }

    /// APNs binds a token connection to its team's apps on the first authenticated push: an
    /// app registered later (`replaceRegistry`) is `TopicDisallowed` on that connection and
    /// accepted on a new one; an app removed is refused at once everywhere.
    @Test func anAppAddedWithReplaceRegistryWaitsForANewConnection() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Self.certs) { $0.server.tlsEnabled = false }
        defer { mock.stop() }
        let open = try Self.client(for: mock.productionURL, trust: nil)
        let token = try Self.providerToken()
        #expect(try await open.send(Self.push(token: token)).status == 200)

        var registry = mock.registry
        registry.bundleIDs.insert("com.example.other")
        mock.replaceRegistry(registry)
        let added = try await open.send(Self.push(token: token, topic: "com.example.other"))
        let kept = try await open.send(Self.push(token: token))
        let fresh = try Self.client(for: mock.productionURL, trust: nil)
        let onNewConnection = try await fresh.send(Self.push(token: token, topic: "com.example.other"))

        registry.bundleIDs.remove("com.example.other")
        mock.replaceRegistry(registry)
        let removed = try await fresh.send(Self.push(token: token, topic: "com.example.other"))
        await open.close()
        await fresh.close()

        #expect(added.status == 400 && String(decoding: added.body, as: UTF8.self) == #"{"reason":"TopicDisallowed"}"#)
        #expect(kept.status == 200)
        #expect(onNewConnection.status == 200)
        #expect(removed.status == 400 && String(decoding: removed.body, as: UTF8.self) == #"{"reason":"TopicDisallowed"}"#)
    }

    /// `/metrics` agrees with the capture: a push a fault reset or cut off is rejected with
    /// no reason (status 0 in the capture), not accepted; a delayed answer's latency includes
    /// the delay.
    @Test func metricsCountUnansweredPushesAsRejectedAndDelaysInTheLatency() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Self.certs) { $0.server.tlsEnabled = false }
        defer { mock.stop() }
        let token = try Self.providerToken()
        for action in [FaultAction.resetStream(.cancel), .closeConnection, .delay(.milliseconds(600))] {
            try mock.faults.replaceAll([FaultRule(id: "once", count: 1, action: action)])
            let apns = try Self.client(for: mock.productionURL, trust: nil)
            _ = try? await apns.send(Self.push(token: token))
            await apns.close()
        }
        let control = try Self.client(for: mock.controlURL, trust: nil)
        let text = String(decoding: try await control.send(HTTPClientRequest(path: "/metrics")).body, as: UTF8.self)
        await control.close()
        #expect(text.contains(#"apns_mock_pushes_total{environment="production",outcome="accepted",reason=""} 1"#), "\(text)")
        #expect(text.contains(#"apns_mock_pushes_total{environment="production",outcome="rejected",reason=""} 2"#), "\(text)")
        // Lower bounds only: a loaded machine may add any time to any answer.
        func sample(_ name: String) -> Double? {
            text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
        }
        #expect(sample("apns_mock_push_latency_seconds_count") == 3, "\(text)")
        #expect((sample(#"apns_mock_push_latency_seconds_bucket{le="0.5"}"#) ?? 3) <= 2, "the delayed push is past 0.5 s: \(text)")
        #expect((sample("apns_mock_push_latency_seconds_sum") ?? 0) >= 0.6, "the delay is in the latency: \(text)")
        #expect(mock.capture.records(matching: CaptureFilter(outcome: .rejected)).count == 2)
    }

    /// A client that drops its connection during `/pushes/wait` ends the wait at once,
    /// rather than leaving it to its timeout (up to ten minutes, checked on every push).
    @Test func aWaitEndsWhenItsClientGoesAway() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Self.certs) { $0.server.tlsEnabled = false }
        defer { mock.stop() }
        let control = try Self.client(for: mock.controlURL, trust: nil)
        let waiting = Task { try await control.send(HTTPClientRequest(path: "/pushes/wait?count=1000000&timeout=600")) }
        #expect(await pollUntil { mock.capture.pendingWaitCount == 1 })
        await control.close()
        #expect(await pollUntil { mock.capture.pendingWaitCount == 0 }, "the wait outlived its client")
        _ = await waiting.result
    }

    /// A long-poll pending when the mock stops is answered 503 with the pushes it had, not
    /// left to have its connection reset.
    @Test func aWaitPendingAtStopIsAnswered503WithWhatItHad() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Self.certs) { $0.server.tlsEnabled = false }
        let apns = try Self.client(for: mock.productionURL, trust: nil)
        #expect(try await apns.send(Self.push(token: try Self.providerToken())).status == 200)
        await apns.close()
        let control = try Self.client(for: mock.controlURL, trust: nil)
        let waiting = Task { try await control.send(HTTPClientRequest(path: "/pushes/wait?count=5&timeout=60")) }
        #expect(await pollUntil { mock.capture.pendingWaitCount == 1 })
        try await onThread { mock.stop() }
        let answer = try await waiting.value
        await control.close()
        let text = String(decoding: answer.body, as: UTF8.self)
        #expect(answer.status == 503, "\(text)")
        #expect(text.hasPrefix(#"{"count":1,"error":"the mock is stopping","satisfied":false,"pushes":[{"v":2,"seq":1,"#), "\(text)")
    }

    /// A record's own `time` (ISO-8601 with microseconds) works as a `since`/`until` bound.
    @Test func captureTimesWithFractionalSecondsFilterTheListing() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Self.certs) { $0.server.tlsEnabled = false }
        defer { mock.stop() }
        let control = try Self.client(for: mock.controlURL, trust: nil)
        let apns = try Self.client(for: mock.productionURL, trust: nil)
        for _ in 0..<2 {
            _ = try await apns.send(Self.push(token: try Self.providerToken()))
            try await Task.sleep(for: .milliseconds(2))
        }
        let listing = try await control.send(HTTPClientRequest(path: "/pushes"))
        guard case let .object(body)? = try? JSONParser.parse(listing.body, maximumDepth: 16), case let .array(pushes)? = body["pushes"],
              pushes.count == 2, case let .object(second) = pushes[1], case let .string(time)? = second["time"] else {
            Issue.record("unexpected listing: \(String(decoding: listing.body, as: UTF8.self).prefix(300))")
            return
        }
        #expect(time.contains("."), "\(time)")
        for (bound, expected) in [("since", "{\"count\":1,"), ("until", "{\"count\":1,")] {
            let answer = try await control.send(HTTPClientRequest(path: "/pushes?\(bound)=\(time)"))
            #expect(answer.status == 200 && String(decoding: answer.body, as: UTF8.self).hasPrefix(expected),
                    "\(bound)=\(time): \(String(decoding: answer.body, as: UTF8.self).prefix(200))")
        }
        await control.close()
        await apns.close()
    }

    /// A time past what the mock can count in milliseconds is a 400 naming the field, and
    /// the mock goes on serving, also when the device list is written back.
    @Test func anOutOfRangeUnregisteredTimeIsRefusedAndTheMockKeepsServing() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Self.certs) { $0.server.tlsEnabled = false }
        defer { mock.stop() }
        let control = try Self.client(for: mock.controlURL, trust: nil)
        let apns = try Self.client(for: mock.productionURL, trust: nil)
        let device = #"[{"token":"\#(String(repeating: "ab", count: 32))","bundle_id":"com.example.app","#
            + #""environment":"production","state":"unregistered","unregistered_since":"#
        let refused = try await control.send(HTTPClientRequest.control(
            "PUT", path: "/devices", body: Array((device + "9223372036854775807}]").utf8)))
        #expect(refused.status == 400)
        #expect(String(decoding: refused.body, as: UTF8.self).contains("devices[0].unregistered_since"))

        let latest = try await control.send(HTTPClientRequest.control(
            "PUT", path: "/devices", body: Array((device + #""9999-12-31T23:59:59.999Z"}]"#).utf8)))
        #expect(latest.status == 200, "\(String(decoding: latest.body, as: UTF8.self))")
        let gone = try await apns.send(Self.push(token: try Self.providerToken()))
        #expect(gone.status == 410)
        #expect(String(decoding: gone.body, as: UTF8.self) == #"{"reason":"Unregistered","timestamp":253402300799999}"#)
        await control.close()
        await apns.close()
    }

    /// `GET /faults` says how often each rule fired and how many firings a counted rule
    /// has left; the listing can be sent back as it is, with fresh counts.
    @Test func theFaultListingCountsFiringsAndCanBePutBack() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Self.certs) { $0.server.tlsEnabled = false }
        defer { mock.stop() }
        let control = try Self.client(for: mock.controlURL, trust: nil)
        let apns = try Self.client(for: mock.productionURL, trust: nil)
        let rules = #"[{"id":"down","count":3,"action":{"type":"unavailable","reason":"ServiceUnavailable"}},"#
            + #"{"id":"never","match":{"topic":"com.example.other"},"action":{"type":"close_connection"}}]"#
        let put = try await control.send(HTTPClientRequest.control("PUT", path: "/faults", body: Array(rules.utf8)))
        #expect(put.status == 200)

        let answered = try await apns.send(Self.push(token: try Self.providerToken()))
        #expect(answered.status == 503)
        let listing = try await control.send(HTTPClientRequest(path: "/faults"))
        #expect(listing.status == 200)
        guard case let .array(entries)? = try? JSONParser.parse(listing.body, maximumDepth: 8), entries.count == 2,
              case let .object(down) = entries[0], case let .object(never) = entries[1] else {
            Issue.record("not a two-rule listing: \(String(decoding: listing.body, as: UTF8.self))")
            return
        }
        #expect(down["id"] == .string("down"))
        #expect(down["fired"] == .integer(1))
        #expect(down["remaining"] == .integer(2))
        #expect(never["fired"] == .integer(0))
        #expect(never["remaining"] == nil)

        // A rule posted without an id gets a free one, even after a deletion freed a number.
        let unnamed = Array(#"{"action":{"type":"delay","milliseconds":1}}"#.utf8)
        var posted: [Int] = []
        for _ in 0..<2 { posted.append(try await control.send(HTTPClientRequest.control("POST", path: "/faults", body: unnamed)).status) }
        #expect(mock.faults.rules.map(\.id) == ["down", "never", "fault-3", "fault-4"])
        #expect(try await control.send(HTTPClientRequest.control("DELETE", path: "/faults/fault-3")).status == 204)
        let again = try await control.send(HTTPClientRequest.control("POST", path: "/faults", body: unnamed))
        #expect(posted == [201, 201] && again.status == 201, "\(String(decoding: again.body, as: UTF8.self))")
        #expect(mock.faults.rules.map(\.id) == ["down", "never", "fault-4", "fault-5"])
        try mock.faults.replaceAll(mock.faults.rules.filter { !$0.id.hasPrefix("fault-") })

        let putBack = try await control.send(HTTPClientRequest.control("PUT", path: "/faults", body: listing.body))
        #expect(putBack.status == 200, "\(String(decoding: putBack.body, as: UTF8.self))")
        #expect(mock.faults.statistics.map(\.fired) == [0, 0])
        #expect(mock.faults.rules.first?.count == 3)
        await control.close()
        await apns.close()
    }

    /// A query parameter an endpoint does not read is a 400 naming it and what the endpoint
    /// reads: a misspelt filter must not let a wait be satisfied by another device's push,
    /// nor a misspelt flag leave the registry as it was while answering 200.
    /// A parameter given twice (`outcome=accepted&outcome=rejected`) or one that does not
    /// decode (`%zz`, a lone `%`, bytes that are not UTF-8) is a 400 naming it, never a guess:
    /// neither the last value winning silently nor a bad escape kept as typed.
    @Test func repeatedOrUndecodableQueryParametersAreRefused() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Self.certs) { $0.server.tlsEnabled = false }
        defer { mock.stop() }
        let control = try Self.client(for: mock.controlURL, trust: nil)
        let cases: [(String, String)] = [
            ("/pushes?outcome=accepted&outcome=rejected", #"query parameter \"outcome\" is given more than once"#),
            ("/pushes?topic=a%zzb", #"query parameter \"topic=a%zzb\" does not decode"#),
            ("/pushes?topic=%", #"query parameter \"topic=%\" does not decode"#),
            ("/pushes?topic=%FF", #"query parameter \"topic=%FF\" does not decode"#),
            ("/pushes/wait?count=1&timeout=1&count=2", #"\"count\" is given more than once"#),
        ]
        for (path, message) in cases {
            let answer = try await control.send(HTTPClientRequest(path: path))
            let text = String(decoding: answer.body, as: UTF8.self)
            #expect(answer.status == 400 && text.contains(message), "\(path): \(answer.status) \(text)")
        }
        // Encoded text that decodes is still fine.
        #expect(try await control.send(HTTPClientRequest(path: "/pushes?topic=com.example.app%2Ebeta&limit=1")).status == 200)
        await control.close()
    }

    /// The transport's own refusals on the control API (a body over its 4 MiB limit, an
    /// unparsable HTTP/1.1 request) are `{"error":…}` JSON like every other error there.
    @Test func transportRefusalsOnTheControlAPIAreJSON() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Self.certs) { $0.server.tlsEnabled = false }
        defer { mock.stop() }
        let control = try Self.client(for: mock.controlURL, trust: nil)
        let huge = try await control.send(HTTPClientRequest.control("PUT", path: "/faults", body: [UInt8](repeating: 0x20, count: 5 << 20)))
        await control.close()
        let text = String(decoding: huge.body, as: UTF8.self)
        #expect(huge.status == 413 && huge.headers["content-type"] == "application/json", "\(huge.status) \(text)")
        #expect(text.hasPrefix(#"{"error":"request body exceeds 4194304 bytes"#), "\(text)")

        // A method the HTTP/1.1 parser does not know: refused by the transport, before the API.
        let url = mock.controlURL + "/healthz"
        let curl = try await onThread { try SpawnedProcess.run("curl", ["-s", "-i", "-X", "FOO", url], timeout: 30) }
        let answer = curl.stdout.lowercased()
        #expect(answer.hasPrefix("http/1.1 400"), "\(curl.stdout)")
        #expect(answer.contains("content-type: application/json") && answer.contains(#"{"error":"#), "\(curl.stdout)")
    }

    @Test func unknownQueryParametersAreRefusedOnEveryEndpoint() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Self.certs) { $0.server.tlsEnabled = false }
        defer { mock.stop() }
        let control = try Self.client(for: mock.controlURL, trust: nil)
        let apns = try Self.client(for: mock.productionURL, trust: nil)
        let token = try Self.providerToken()
        #expect(try await apns.send(Self.push(token: token)).status == 200)
        func body(_ response: HTTPClientResponse) -> String { String(decoding: response.body, as: UTF8.self) }

        let wait = try await control.send(HTTPClientRequest(path: "/pushes/wait?count=1&timeout=5&devicetoken=\(String(repeating: "ff", count: 32))"))
        #expect(wait.status == 400 && wait.headers["content-type"] == "application/json", "\(wait.status) \(body(wait))")
        #expect(body(wait) == #"{"error":"unknown query parameter \"devicetoken\"; expected one of count, timeout, "#
            + #"device_token, device_token_prefix, topic, push_type, environment, outcome, reason, apns_id, unique_id, "#
            + #"since, until"}"# + "\n")

        let devices = Array(#"[{"token":"\#(String(repeating: "cd", count: 32))","bundle_id":"com.example.app","environment":"production"}]"#.utf8)
        let put = try await control.send(HTTPClientRequest.control("PUT", path: "/devices?acceptunknowndevices=false", body: devices))
        #expect(put.status == 400 && body(put).contains(#"unknown query parameter \"acceptunknowndevices\"; expected one of accept_unknown_devices"#),
                "\(body(put))")
        #expect(mock.registry.devices.isEmpty, "a refused PUT changes nothing")
        #expect(try await apns.send(Self.push(token: token)).status == 200)

        let listing = try await control.send(HTTPClientRequest(path: "/pushes?limit=1&outcom=rejected"))
        #expect(listing.status == 400 && body(listing).contains(
            "; expected one of device_token, device_token_prefix, topic, push_type, environment, outcome, reason, apns_id, unique_id, since, until, limit"))

        let endpoints: [(String, String)] = [
            ("GET", "/healthz"), ("GET", "/metrics"), ("DELETE", "/pushes"), ("GET", "/devices"), ("GET", "/keys"), ("PUT", "/keys"),
            ("GET", "/faults"), ("PUT", "/faults"), ("POST", "/faults"), ("DELETE", "/faults"), ("DELETE", "/faults/none"),
        ]
        for (method, path) in endpoints {
            let answer = try await control.send(HTTPClientRequest.control(method, path: path + "?x=1", body: Array("[]".utf8)))
            #expect(answer.status == 400 && body(answer) == #"{"error":"unknown query parameter \"x\"; \#(method) \#(path) takes none"}"# + "\n",
                    "\(method) \(path): \(answer.status) \(body(answer))")
        }
        #expect(mock.capture.count == 2, "DELETE /pushes?x=1 cleared nothing")
        await control.close()
        await apns.close()
    }

    /// A request body or a query parameter with a camelCase name is a 400 that names its
    /// snake_case name, and changes nothing.
    @Test func camelCaseNamesInRequestsAreRefusedNamingTheirNewNames() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Self.certs) { $0.server.tlsEnabled = false }
        defer { mock.stop() }
        let control = try Self.client(for: mock.controlURL, trust: nil)
        let keysBefore = mock.registry.keys.keys.sorted()
        let token = String(repeating: "cd", count: 32)
        let pem = try String(contentsOfFile: Self.certs + "/AuthKey_ABC123DEFG.pub.pem", encoding: .utf8)
        let cases: [(method: String, path: String, body: String, error: String)] = [
            ("PUT", "/devices", #"[{"token":"\#(token)","bundleId":"com.example.app","environment":"production"}]"#,
             #"devices[0].bundleId: unknown field; it is now \"bundle_id\""#),
            ("PUT", "/keys", #"[{"keyId":"ABC123DEFG","team_id":"TEAM000001","public_key":\#(JSONValue.string(pem))}]"#,
             #"keys[0].keyId: unknown field; it is now \"key_id\""#),
            ("POST", "/faults", #"{"match":{"deviceToken":"\#(token)"},"action":{"type":"close_connection"}}"#,
             #"fault.match.deviceToken: unknown field; it is now \"device_token\""#),
            ("PUT", "/faults", #"[{"action":{"type":"rateLimit","limit":1,"window_seconds":1}}]"#,
             #"faults[0].action.type: \"rateLimit\" is now \"rate_limit\"; expected one of status, delay, reset_stream, "#
                + "close_connection, go_away, rate_limit, unavailable"),
            ("PUT", "/devices?acceptUnknownDevices=false", "[]",
             #"unknown query parameter \"acceptUnknownDevices\"; it is now \"accept_unknown_devices\""#),
        ]
        for (method, path, body, error) in cases {
            let answer = try await control.send(HTTPClientRequest.control(method, path: path, body: Array(body.utf8)))
            let text = String(decoding: answer.body, as: UTF8.self)
            #expect(answer.status == 400 && text == #"{"error":"\#(error)"}"# + "\n", "\(method) \(path): \(answer.status) \(text)")
        }
        #expect(mock.registry.devices.isEmpty && mock.registry.acceptsUnknownDevices, "a refused PUT /devices changes nothing")
        #expect(mock.registry.keys.keys.sorted() == keysBefore && mock.faults.rules.isEmpty)
        await control.close()
    }

    /// A known path with a method it does not answer is a 405 naming the methods in `allow`,
    /// `/faults/{id}` (which answers only DELETE) included; an unknown path is a 404.
    @Test func wrongMethodsAre405WithAnAllowHeader() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Self.certs) { $0.server.tlsEnabled = false }
        defer { mock.stop() }
        try mock.faults.add(FaultRule(id: "down", action: .unavailable(.serviceUnavailable)))
        let control = try Self.client(for: mock.controlURL, trust: nil)
        let cases: [(method: String, path: String, allow: String)] = [
            ("GET", "/faults/down", "DELETE"), ("PUT", "/faults/down", "DELETE"), ("POST", "/faults/nope", "DELETE"),
            ("POST", "/pushes", "GET, DELETE"), ("DELETE", "/devices", "GET, PUT"), ("PATCH", "/faults", "GET, PUT, POST, DELETE"),
        ]
        for (method, path, allow) in cases {
            let answer = try await control.send(HTTPClientRequest.control(method, path: path))
            #expect(answer.status == 405 && answer.headers["allow"] == allow, "\(method) \(path): \(answer.status) \(answer.headers)")
            #expect(String(decoding: answer.body, as: UTF8.self)
                == #"{"error":"\#(method) is not allowed on \#(path); it answers \#(allow)"}"# + "\n", "\(method) \(path)")
        }
        #expect(mock.faults.rules.map(\.id) == ["down"])
        let missing = try await control.send(HTTPClientRequest(path: "/faultz"))
        #expect(missing.status == 404 && missing.headers["allow"] == nil)
        await control.close()
    }
}
