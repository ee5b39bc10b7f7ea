import APNsCore
import Foundation
import JWTVerify
import MockAPNs
import StrictJSON
import Testing

/// Files for configuration tests: the repository's `certs/` and `examples/`, and scratch folders.
enum ConfigurationFixtures {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let certs = repository + "/certs"
    static let example = repository + "/examples/apns-mock.json"

    static func temporaryDirectory() throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("mockapns-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.path
    }

    /// Writes `text` as `name` in a fresh folder and returns the file's path.
    static func write(_ text: String, name: String = "mock.json", in directory: String? = nil) throws -> String {
        let folder = try directory ?? temporaryDirectory()
        let path = folder + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func publicKey(_ keyID: String) throws -> ES256PublicKey {
        try ES256PublicKey(contentsOfFile: certs + "/AuthKey_\(keyID).pub.pem")
    }
}

@Suite struct ConfigurationLoadTests {
    typealias Fixtures = ConfigurationFixtures
    static let token = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0"

    /// Loads `text` from a file and expects an error at `path` whose description contains `message`.
    func expectError(
        _ text: String, code: ConfigurationError.Code = .invalidValue, path: String, _ message: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let file = try Fixtures.write(text)
        do {
            _ = try MockConfiguration.load(path: file)
            Issue.record("expected an error at \(path)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
            #expect(error.path == path, "\(error)", sourceLocation: sourceLocation)
            #expect(error.file == file, sourceLocation: sourceLocation)
            #expect(error.description.hasPrefix(file + ": "), "\(error)", sourceLocation: sourceLocation)
            #expect(error.description.contains(message), "\(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func theExampleFileLoads() throws {
        let configuration = try MockConfiguration.load(path: Fixtures.example)
        let examples = Fixtures.repository + "/examples"
        let server = configuration.server
        #expect(server.host == "127.0.0.1" && server.productionPort == 2197 && server.sandboxPort == 2198)
        #expect(server.controlPort == 2199 && server.tlsEnabled && server.maxConcurrentStreams == 1000)
        #expect(server.dropsStreamLimitAfterRejection && server.idleTimeout == .seconds(3600) && server.captureRingSize == 10_000)
        #expect(server.headerTableSize == 4096 && server.initialWindowSize == 65_535)
        #expect(server.maxFrameSize == 16_384 && server.maxHeaderListSize == 8000)
        #expect(server.requestReadTimeout == .seconds(30))
        #expect(server.requestHeadersTimeout == .seconds(10) && server.connectionPrefaceTimeout == .seconds(10))
        #expect(server.maxConnections == 10_000 && server.connectionErrorBudget == nil)
        // Relative paths resolve against the file's folder.
        #expect(server.certificatePath == Fixtures.certs + "/server.pem")
        #expect(server.privateKeyPath == Fixtures.certs + "/server.key")
        #expect(server.clientCAPath == Fixtures.certs + "/ca.pem")
        #expect(server.captureFilePath == examples + "/capture.jsonl")

        let registry = configuration.registry
        #expect(registry.bundleIDs == ["com.example.app", "com.example.other"])
        #expect(!registry.acceptsUnknownDevices)
        #expect(registry.keys.count == 2)
        let first = try #require(registry.keys["ABC123DEFG"])
        #expect(first.teamID == "TEAM000001" && first.environments == .both && first.topics == nil)
        // The .p8 and the public-key PEM both yield the public key.
        #expect(first.publicKey.jwk() == (try Fixtures.publicKey("ABC123DEFG")).jwk())
        let second = try #require(registry.keys["XYZ987WXYZ"])
        #expect(second.environments == .sandbox && second.topics == ["com.example.other"])
        #expect(second.publicKey.jwk() == (try Fixtures.publicKey("XYZ987WXYZ")).jwk())

        #expect(configuration.faults.map(\.id) == ["flaky", "slow-voip", "throttle", "drop-once"])
        #expect(configuration.faults[0] == FaultRule(
            id: "flaky", match: FaultMatch(topic: "com.example.app"), probability: 0.5, count: 3,
            action: .status(500, reason: .internalServerError), note: "half of the next three pushes to the app fail"))
        try configuration.validate()
    }

    @Test func deviceStatesLoad() throws {
        let registry = try MockConfiguration.load(path: Fixtures.example).registry
        func device(_ hex: String) throws -> RegisteredDevice {
            let token = try #require(DeviceToken(hex))
            return try #require(registry.devices[token])
        }
        let active = try device(Self.token)
        #expect(active.bundleID == "com.example.app" && active.environment == .sandbox && active.state == .active)
        let since = Date(timeIntervalSince1970: 1_714_564_800)
        #expect(try device(String(repeating: "a", count: 64)).state == .unregistered(since: since))
        #expect(try device(String(repeating: "a", count: 64)).environment == .production)
        // Epoch milliseconds mean the same instant as the ISO-8601 form.
        #expect(try device(String(repeating: "b", count: 64)).state == .unregistered(since: since))
        #expect(try device(String(repeating: "c", count: 64)).state == .expired)
    }

    @Test func relativeKeyPathsResolveAgainstTheConfigurationFolder() throws {
        let folder = try Fixtures.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: folder + "/keys", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixtures.certs + "/AuthKey_ABC123DEFG.p8", toPath: folder + "/keys/k.p8")
        let file = try Fixtures.write(
            #"{"keys":[{"key_id":"ABC123DEFG","team_id":"TEAM000001","path":"keys/k.p8"}]}"#, in: folder)
        // Loaded from another working directory, the path still means "next to the file".
        let configuration = try MockConfiguration.load(path: file)
        #expect(configuration.registry.keys["ABC123DEFG"]?.publicKey.jwk() == (try Fixtures.publicKey("ABC123DEFG")).jwk())
        // An absolute path is used as is.
        let absolute = try Fixtures.write(
            #"{"keys":[{"key_id":"ABC123DEFG","team_id":"TEAM000001","path":"\#(folder)/keys/k.p8"}]}"#)
        #expect(try MockConfiguration.load(path: absolute).registry.keys.count == 1)
    }

    @Test func absentSectionsKeepTheBase() throws {
        let file = try Fixtures.write(#"{"server":{"sandbox_port":0},"faults":[{"action":{"type":"close_connection"}}]}"#)
        let base = try MockConfiguration.makeDefault(certsDirectory: Fixtures.certs)
        let configuration = try MockConfiguration.load(path: file, base: base)
        #expect(configuration.server.sandboxPort == 0)
        #expect(configuration.server.productionPort == MockServerSettings.defaultProductionPort)
        #expect(configuration.server.certificatePath == Fixtures.certs + "/server.pem")
        #expect(configuration.registry.keys.keys.sorted() == ["ABC123DEFG", "XYZ987WXYZ"])
        #expect(configuration.registry.acceptsUnknownDevices)
        #expect(configuration.faults.map(\.id) == ["fault-1"])
    }

    @Test func listingDevicesTurnsUnknownTokensAwayUnlessTold() throws {
        let device = #"{"token":"\#(Self.token)","bundle_id":"com.example.app","environment":"sandbox"}"#
        let strict = try MockConfiguration.load(path: try Fixtures.write(#"{"devices":[\#(device)]}"#))
        #expect(!strict.registry.acceptsUnknownDevices && strict.registry.devices.count == 1)
        let lenient = try MockConfiguration.load(
            path: try Fixtures.write(#"{"devices":[\#(device)],"accept_unknown_devices":true}"#))
        #expect(lenient.registry.acceptsUnknownDevices)
    }

    @Test func defaultsAreSpelledOut() throws {
        let configuration = MockConfiguration.makeDefault()
        #expect(configuration.registry.bundleIDs == [MockConfiguration.defaultBundleID])
        #expect(configuration.registry.keys.isEmpty && configuration.registry.devices.isEmpty)
        #expect(configuration.registry.acceptsUnknownDevices && configuration.faults.isEmpty)
        let server = configuration.server
        #expect(server.maxConcurrentStreams == 1000 && server.dropsStreamLimitAfterRejection && server.tlsEnabled)
        #expect(server.certificatePath == "certs/server.pem" && server.clientCAPath == nil && server.captureFilePath == nil)
        // What APNs announces in its first SETTINGS.
        #expect(server.headerTableSize == 4096 && server.initialWindowSize == 65_535)
        #expect(server.maxFrameSize == 16_384 && server.maxHeaderListSize == 8000)

        let zeroConfig = try MockConfiguration.makeDefault(certsDirectory: Fixtures.certs)
        for keyID in ["ABC123DEFG", "XYZ987WXYZ"] {
            let key = try #require(zeroConfig.registry.keys[keyID])
            #expect(key.teamID == MockConfiguration.defaultTeamID && key.environments == .both && key.topics == nil)
            #expect(key.publicKey.jwk() == (try Fixtures.publicKey(keyID)).jwk())
        }
        #expect(zeroConfig.server.privateKeyPath == Fixtures.certs + "/server.key")
        #expect(throws: ConfigurationError(.invalidKey, path: "keys[0].path", "")) {
            try MockConfiguration.makeDefault(certsDirectory: "/nonexistent")
        }
    }

    @Test func theServerSectionSetsTheHTTP2SettingsTheListenersAnnounce() throws {
        let file = try Fixtures.write(#"""
        {"server":{"header_table_size":0,"initial_window_size":1048576,"max_frame_size":16777215,"max_header_list_size":16384}}
        """#)
        let server = try MockConfiguration.load(path: file).server
        #expect(server.headerTableSize == 0 && server.initialWindowSize == 1_048_576)
        #expect(server.maxFrameSize == 16_777_215 && server.maxHeaderListSize == 16_384)

        try expectError(#"{"server":{"max_frame_size":16383}}"#, path: "server.max_frame_size", "16384-16777215, found 16383")
        try expectError(#"{"server":{"max_frame_size":16777216}}"#, path: "server.max_frame_size", "16384-16777215")
        try expectError(#"{"server":{"initial_window_size":0}}"#, path: "server.initial_window_size", "at least 1")
        try expectError(#"{"server":{"initial_window_size":2147483648}}"#, path: "server.initial_window_size", "found 2147483648")
        try expectError(#"{"server":{"max_header_list_size":0}}"#, path: "server.max_header_list_size", "at least 1")
        try expectError(#"{"server":{"header_table_size":-1}}"#, path: "server.header_table_size", "at least 0")

        var settings = MockServerSettings.makeDefault()
        settings.maxFrameSize = 1024
        #expect(throws: ConfigurationError(.invalidValue, path: "server.max_frame_size", "")) { try settings.validate() }
        settings.maxFrameSize = 16_384
        settings.initialWindowSize = 1 << 31
        #expect(throws: ConfigurationError(.invalidValue, path: "server.initial_window_size", "")) { try settings.validate() }
    }

    @Test func unreadableAndMalformedFilesNameTheFile() throws {
        do {
            _ = try MockConfiguration.load(path: "/nonexistent/mock.json")
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .unreadableFile && error.description.hasPrefix("/nonexistent/mock.json: "))
        }
        try expectError("{\n  \"apps\": [\"a\",]\n}", code: .invalidJSON, path: "", "line 2, column 16")
        try expectError(#"{"apps":["a"],"apps":["b"]}"#, code: .invalidJSON, path: "", "duplicate key")
        try expectError("[]", path: "", "expected an object, found an array")
    }

    @Test func theValidationSectionSetsTheChoicesWhereAppleIsSilent() throws {
        let file = try Fixtures.write(#"""
        {"validation":{"accept_missing_push_type":false,"reject_immediate_background_pushes":false,
                       "reject_malformed_payloads":false,"payload_nesting_limit":8,
                       "go_away_reasons":["BadCertificate","ExpiredProviderToken"]}}
        """#)
        let validation = try MockConfiguration.load(path: file).validation
        #expect(!validation.acceptsMissingPushType && !validation.rejectsImmediateBackgroundPushes)
        #expect(!validation.rejectsMalformedPayloads && validation.payloadNestingLimit == 8)
        #expect(validation.goAwayReasons == [.badCertificate, .expiredProviderToken])
        #expect(try MockConfiguration.load(path: Fixtures.write("{}")).validation == .makeDefault())
        try expectError(#"{"validation":{"go_away_reasons":["Nope"]}}"#, path: "validation.go_away_reasons[0]", "expected an APNs reason")
        try expectError(#"{"validation":{"payload_nesting_limit":0}}"#, path: "validation.payload_nesting_limit", "1-512")
        try expectError(#"{"validation":{"strict":true}}"#, code: .unknownField, path: "validation.strict", "unknown field")
    }

    @Test func errorsNameTheJSONPath() throws {
        let key = #""key_id":"ABC123DEFG","team_id":"TEAM000001","path":"\#(Fixtures.certs)/AuthKey_ABC123DEFG.p8""#
        let device = #""token":"\#(Self.token)","bundle_id":"com.example.app","environment":"sandbox""#
        try expectError(#"{"sever":{}}"#, code: .unknownField, path: "sever", "unknown field; expected one of server, apps")
        try expectError(#"{"server":{"sandbox_port":"2198"}}"#, path: "server.sandbox_port", #"expected an integer 0-65535, found string "2198""#)
        try expectError(#"{"server":{"production_port":70000}}"#, path: "server.production_port", "expected an integer 0-65535, found 70000")
        try expectError(#"{"server":{"sandbox_port":2197}}"#, path: "server.sandbox_port", "already used by production_port")
        try expectError(#"{"server":{"tls":"yes"}}"#, path: "server.tls", "expected true or false")
        try expectError(#"{"server":{"max_concurrent_streams":0}}"#, path: "server.max_concurrent_streams", "at least 1")
        try expectError(#"{"server":{"idle_timeout_seconds":0}}"#, path: "server.idle_timeout_seconds", "expected a number")
        try expectError(#"{"server":{"request_read_timeout_seconds":0}}"#, path: "server.request_read_timeout_seconds", "expected a number")
        try expectError(#"{"server":{"capture_ring_size":-1}}"#, path: "server.capture_ring_size", "at least 0")
        try expectError(#"{"server":{"request_headers_timeout_seconds":0}}"#, path: "server.request_headers_timeout_seconds", "expected a number")
        try expectError(#"{"server":{"connection_preface_timeout_seconds":"5"}}"#, path: "server.connection_preface_timeout_seconds",
                        "expected a number")
        try expectError(#"{"server":{"max_connections":0}}"#, path: "server.max_connections", "expected an integer")
        try expectError(#"{"server":{"connection_error_budget":0}}"#, path: "server.connection_error_budget", "expected an integer")
        try expectError(#"{"server":{"timeout":5}}"#, code: .unknownField, path: "server.timeout", "unknown field")
        try expectError(#"{"apps":"com.example.app"}"#, path: "apps", "expected an array")
        try expectError(#"{"apps":["ok",""]}"#, path: "apps[1]", "expected a bundle ID")
        try expectError(#"{"keys":[{\#(key)},{"key_id":"SHORT","team_id":"TEAM000001","path":"x"}]}"#, path: "keys[1].key_id", "10 letters or digits")
        try expectError(#"{"keys":[{"key_id":"ABC123DEFG","path":"x"}]}"#, code: .missingField, path: "keys[0].team_id", "required field is missing")
        try expectError(#"{"keys":[{"key_id":"ABC123DEFG","team_id":"TEAM000001"}]}"#, code: .missingField, path: "keys[0].path", "public_key")
        try expectError(#"{"keys":[{"key_id":"ABC123DEFG","team_id":"TEAM000001","path":"missing.p8"}]}"#,
                        code: .invalidKey, path: "keys[0].path", "cannot read key file")
        try expectError(#"{"keys":[{"key_id":"ABC123DEFG","team_id":"TEAM000001","path":"\#(Fixtures.certs)/ca.pem"}]}"#,
                        code: .invalidKey, path: "keys[0].path", "ca.pem")
        try expectError(#"{"keys":[{\#(key),"environment":"development"}]}"#, path: "keys[0].environment", #""production", "sandbox" or "both""#)
        try expectError(#"{"keys":[{\#(key),"topics":["com.example.app","com.nope"]}]}"#, path: "keys[0].topics[1]", "expected one of the apps")
        try expectError(#"{"keys":[{\#(key)},{\#(key)}]}"#, code: .duplicateID, path: "keys[1].key_id", "duplicate key ID")
        try expectError(#"{"devices":[{"token":"xyz","bundle_id":"com.example.app","environment":"sandbox"}]}"#,
                        path: "devices[0].token", "hex digits")
        try expectError(#"{"devices":[{\#(device)},{\#(device)}]}"#, code: .duplicateID, path: "devices[1].token", "duplicate device token")
        try expectError(#"{"devices":[{"token":"ab","bundle_id":"com.other","environment":"sandbox"}]}"#,
                        path: "devices[0].bundle_id", "expected one of the apps (com.example.app)")
        try expectError(#"{"devices":[{"token":"ab","bundle_id":"com.example.app","environment":"development"}]}"#,
                        path: "devices[0].environment", #""production" or "sandbox""#)
        try expectError(#"{"devices":[{\#(device),"state":"gone"}]}"#, path: "devices[0].state", "expected one of active, unregistered, expired")
        try expectError(#"{"devices":[{\#(device),"state":"unregistered"}]}"#, code: .missingField, path: "devices[0].unregistered_since", "required")
        try expectError(#"{"devices":[{\#(device),"state":"unregistered","unregistered_since":"yesterday"}]}"#,
                        path: "devices[0].unregistered_since", "ISO-8601")
        try expectError(#"{"devices":[{\#(device),"unregistered_since":0}]}"#, path: "devices[0].unregistered_since", "only when")
        try expectError(#"{"accept_unknown_devices":1}"#, path: "accept_unknown_devices", "expected true or false")
        try expectError(#"{"faults":[{"action":{"type":"close_connection"}},{"action":{"type":"close_connection"}},{"action":{"type":"status","status":700,"reason":"InternalServerError"}}]}"#,
                        path: "faults[2].action.status", "faults[2].action.status: expected an integer 400-599, found 700")
    }

    /// Every field name spelt in camelCase is refused, and the error names its
    /// snake_case name, at whatever depth it appears: the root, `server`, `validation`, a
    /// key, a device, a fault rule, its `match` and its `action`.
    @Test(arguments: [
        (#"{"acceptUnknownDevices":true}"#, "acceptUnknownDevices", "accept_unknown_devices"),
        (#"{"server":{"productionPort":2197}}"#, "server.productionPort", "production_port"),
        (#"{"server":{"sandboxPort":2198}}"#, "server.sandboxPort", "sandbox_port"),
        (#"{"server":{"controlPort":2199}}"#, "server.controlPort", "control_port"),
        (#"{"server":{"privateKey":"k"}}"#, "server.privateKey", "private_key"),
        (#"{"server":{"clientCA":"ca.pem"}}"#, "server.clientCA", "client_ca"),
        (#"{"server":{"maxConcurrentStreams":10}}"#, "server.maxConcurrentStreams", "max_concurrent_streams"),
        (#"{"server":{"dropStreamLimitAfterRejection":true}}"#, "server.dropStreamLimitAfterRejection", "drop_stream_limit_after_rejection"),
        (#"{"server":{"headerTableSize":4096}}"#, "server.headerTableSize", "header_table_size"),
        (#"{"server":{"initialWindowSize":65535}}"#, "server.initialWindowSize", "initial_window_size"),
        (#"{"server":{"maxFrameSize":16384}}"#, "server.maxFrameSize", "max_frame_size"),
        (#"{"server":{"maxHeaderListSize":8000}}"#, "server.maxHeaderListSize", "max_header_list_size"),
        (#"{"server":{"idleTimeoutSeconds":60}}"#, "server.idleTimeoutSeconds", "idle_timeout_seconds"),
        (#"{"server":{"requestReadTimeoutSeconds":30}}"#, "server.requestReadTimeoutSeconds", "request_read_timeout_seconds"),
        (#"{"server":{"captureFile":"c.jsonl"}}"#, "server.captureFile", "capture_file"),
        (#"{"server":{"captureRingSize":10}}"#, "server.captureRingSize", "capture_ring_size"),
        (#"{"validation":{"acceptMissingPushType":true}}"#, "validation.acceptMissingPushType", "accept_missing_push_type"),
        (#"{"validation":{"rejectImmediateBackgroundPushes":true}}"#, "validation.rejectImmediateBackgroundPushes",
         "reject_immediate_background_pushes"),
        (#"{"validation":{"rejectMalformedPayloads":true}}"#, "validation.rejectMalformedPayloads", "reject_malformed_payloads"),
        (#"{"validation":{"payloadNestingLimit":8}}"#, "validation.payloadNestingLimit", "payload_nesting_limit"),
        (#"{"validation":{"goAwayReasons":[]}}"#, "validation.goAwayReasons", "go_away_reasons"),
        (#"{"keys":[{"keyId":"ABC123DEFG","team_id":"TEAM000001","path":"k.p8"}]}"#, "keys[0].keyId", "key_id"),
        (#"{"keys":[{"key_id":"ABC123DEFG","teamId":"TEAM000001","path":"k.p8"}]}"#, "keys[0].teamId", "team_id"),
        (#"{"keys":[{"key_id":"ABC123DEFG","team_id":"TEAM000001","publicKey":"k"}]}"#, "keys[0].publicKey", "public_key"),
        (#"{"devices":[{"token":"ab","bundleId":"com.example.app","environment":"sandbox"}]}"#, "devices[0].bundleId", "bundle_id"),
        (#"{"devices":[{"token":"ab","unregisteredSince":0}]}"#, "devices[0].unregisteredSince", "unregistered_since"),
        (#"{"faults":[{"match":{"deviceToken":"ab"},"action":{"type":"close_connection"}}]}"#, "faults[0].match.deviceToken", "device_token"),
        (#"{"faults":[{"match":{"pushType":"alert"},"action":{"type":"close_connection"}}]}"#, "faults[0].match.pushType", "push_type"),
        (#"{"faults":[{"action":{"type":"reset_stream","errorCode":"CANCEL"}}]}"#, "faults[0].action.errorCode", "error_code"),
        (#"{"faults":[{"action":{"type":"rate_limit","limit":1,"windowSeconds":1}}]}"#, "faults[0].action.windowSeconds", "window_seconds"),
    ])
    func aCamelCaseFieldIsRefusedNamingItsNewName(text: String, path: String, newName: String) throws {
        try expectError(text, code: .unknownField, path: path, #"unknown field; it is now "\#(newName)""#)
    }

    /// A fault action type's camelCase spelling is an invalid value whose error names the
    /// snake_case one.
    @Test(arguments: [("resetStream", "reset_stream"), ("closeConnection", "close_connection"), ("goAway", "go_away"),
                      ("rateLimit", "rate_limit")])
    func aCamelCaseActionTypeIsRefusedNamingItsNewName(old: String, new: String) throws {
        try expectError(#"{"faults":[{"action":{"type":"\#(old)"}}]}"#, path: "faults[0].action.type", #""\#(old)" is now "\#(new)""#)
    }

    /// A bundle ID listed twice in `apps` is refused as a repeated key ID or device token
    /// is, in the file and in the registry JSON the Swift API decodes.
    @Test func duplicateBundleIDsInAppsAreRefused() throws {
        try expectError(#"{"apps":["com.example.app","com.example.other","com.example.app"]}"#, code: .duplicateID, path: "apps[2]",
                        #"apps[2]: duplicate bundle ID "com.example.app""#)
        #expect(throws: ConfigurationError.self) {
            try ConfigurationJSON.decodeRegistry(["apps": ["com.a", "com.a"]])
        }
        #expect(try ConfigurationJSON.decodeRegistry(["apps": ["com.a", "com.b"]]).bundleIDs == ["com.a", "com.b"])
    }
}
