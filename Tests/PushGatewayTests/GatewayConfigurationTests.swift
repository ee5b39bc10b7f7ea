import Foundation
import StrictJSON
import Testing
@testable import PushGateway

@Suite struct GatewayConfigurationTests {
    /// The file's keys are snake_case, as every JSON document of the suite.
    @Test func fileKeysAreSnakeCase() {
        #expect(GatewayConfiguration.fileKeys.filter { JSONKeyConvention.snakeCase($0) != $0 }.sorted() == [])
    }

    @Test func theFileOverridesDefaultsKeyByKey() throws {
        let json = #"""
        {"host":"0.0.0.0","port":9443,"tls_cert":"c.pem","tls_key":"k.pem","topic":"com.example.hermes",
         "auth_key":{"key_id":"ABC123DEFG","team_id":"TEAM000001","path":"/keys/AuthKey.p8"},
         "apns_production":"https://127.0.0.1:2197","apns_sandbox":"http://127.0.0.1:2198","apns_ca":"ca.pem",
         "auth_modes":["capability"],"rate_limits":{"per_device":{"burst":3,"per_second":0.25},"total":{"burst":50,"per_second":20},
                       "register":{"burst":7,"per_second":2},"per_source":{"burst":9,"per_second":4}},
         "apns_attempts":4,"apns_timeout_ms":2500,"max_body_bytes":2048,"threads":2,"max_connections":50,"max_connections_per_source":5,"max_concurrent_streams":8,
         "request_read_timeout_seconds":3}
        """#
        let configuration = try GatewayConfiguration.decode(Array(json.utf8), base: GatewayConfiguration(topic: ""))
        #expect(configuration.host == "0.0.0.0" && configuration.port == 9443)
        #expect(configuration.tlsCertificatePath == "c.pem" && configuration.tlsPrivateKeyPath == "k.pem")
        #expect(configuration.topic == "com.example.hermes")
        #expect(configuration.providerKey == GatewayProviderKey(keyID: "ABC123DEFG", teamID: "TEAM000001", path: "/keys/AuthKey.p8"))
        #expect(configuration.productionURL == "https://127.0.0.1:2197" && configuration.sandboxURL == "http://127.0.0.1:2198")
        #expect(configuration.apnsCAPath == "ca.pem")
        #expect(configuration.authModes == [.capability])
        #expect(configuration.perDeviceRateLimit == GatewayRateLimit(burst: 3, perSecond: 0.25))
        #expect(configuration.totalRateLimit == GatewayRateLimit(burst: 50, perSecond: 20))
        #expect(configuration.registerRateLimit == GatewayRateLimit(burst: 7, perSecond: 2))
        #expect(configuration.perSourceRateLimit == GatewayRateLimit(burst: 9, perSecond: 4))
        #expect(configuration.apnsAttempts == 4 && configuration.maximumBodySize == 2048)
        #expect(configuration.apnsTimeout == .milliseconds(2500))
        #expect(configuration.eventLoopThreads == 2)
        #expect(configuration.maxConnections == 50 && configuration.maxConcurrentStreams == 8)
        #expect(configuration.maxConnectionsPerSource == 5)
        #expect(configuration.requestReadTimeout == .seconds(3))
    }

    @Test func defaultsAreApplesEndpointsAndBothModes() {
        let configuration = GatewayConfiguration(topic: "t")
        #expect(configuration.productionURL == "https://api.push.apple.com")
        #expect(configuration.sandboxURL == "https://api.sandbox.push.apple.com")
        #expect(configuration.authModes == [.hmac, .capability])
        #expect(configuration.maximumBodySize == 4096)
        #expect(configuration.apnsTimeout == .seconds(4), "under the plugin's 5 s timeout")
        #expect(configuration.eventLoopThreads == ProcessInfo.processInfo.activeProcessorCount)
        // A gateway's limits, far below the transport's 10,000 connections of 1,000 streams.
        #expect(configuration.maxConnections == 1_000 && configuration.maxConcurrentStreams == 100)
        // One client address may use a tenth of the connections and half the push rate.
        #expect(configuration.maxConnectionsPerSource == 100)
        #expect(configuration.perSourceRateLimit == GatewayRateLimit(burst: 1_000, perSecond: 500))
        #expect(configuration.requestReadTimeout == .seconds(10))
    }

    @Test(arguments: [
        (#"{"hmac_secret":"s"}"#, "secrets are read only from the environment"),
        (#"{"capability_key":"k"}"#, "secrets are read only from the environment"),
        (#"{"prot":1}"#, "unknown key \"prot\""),
        (#"{"port":"80"}"#, "\"port\": expected an integer"),
        (#"{"auth_modes":["hmac","jwt"]}"#, "unknown mode \"jwt\""),
        (#"{"auth_key":"ABC"}"#, "KEY_ID:TEAM_ID:P8_PATH"),
        (#"{"auth_key":{"key_id":"A","team_id":"T"}}"#, "\"auth_key.path\" is required"),
        (#"{"rate_limits":{"per_device":{"burst":0,"per_second":1}}}"#, "rate_limits.per_device"),
        (#"{"rate_limits":{"device":{}}}"#, "unknown key \"rate_limits.device\""),
        (#"{"threads":0}"#, "\"threads\""),
        (#"{"apns_timeout_ms":99}"#, "\"apns_timeout_ms\": expected an integer from 100 to 60000"),
        (#"{"max_connections":0}"#, "\"max_connections\": expected an integer from 1 to 100000"),
        (#"{"max_connections_per_source":0}"#, "\"max_connections_per_source\": expected an integer from 1 to 100000"),
        (#"{"rate_limits":{"per_source":{"burst":1,"per_second":0}}}"#, "rate_limits.per_source"),
        (#"{"max_concurrent_streams":1001}"#, "\"max_concurrent_streams\": expected an integer from 1 to 1000"),
        (#"{"request_read_timeout_seconds":0}"#, "\"request_read_timeout_seconds\": expected an integer from 1 to 300"),
        ("[1]", "top level must be a JSON object"),
        ("{", "not valid JSON"),
    ])
    func badFilesFailWithTheKeyNamed(json: String, message: String) {
        #expect {
            _ = try GatewayConfiguration.decode(Array(json.utf8), base: GatewayConfiguration(topic: "t"))
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    @Test func secretsComeFromTheEnvironmentOrAFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-secret-\(UUID().uuidString)")
        try Data("from-a-file-0123456789\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }

        let secrets = try GatewaySecrets.fromEnvironment([
            "PUSH_GATEWAY_HMAC_SECRET": "s", "PUSH_GATEWAY_CAPABILITY_KEY_FILE": file.path,
        ])
        #expect(secrets.hmacSecret == Array("s".utf8))
        #expect(secrets.capabilityKey == Array("from-a-file-0123456789".utf8), "the trailing newline is dropped")
        #expect("\(secrets)" == "GatewaySecrets(hmac: set, capability key: set, provider key: unset)")
        var dumped = ""
        dump(secrets, to: &dumped)
        #expect(!dumped.contains("from-a-file"))

        #expect(try GatewaySecrets.fromEnvironment([:]) == GatewaySecrets())
        #expect(throws: GatewayConfigurationError.self) {
            try GatewaySecrets.fromEnvironment(["PUSH_GATEWAY_HMAC_SECRET": "a", "PUSH_GATEWAY_HMAC_SECRET_FILE": file.path])
        }
        #expect(throws: GatewayConfigurationError.self) { try GatewaySecrets.fromEnvironment(["PUSH_GATEWAY_CAPABILITY_KEY": "short"]) }
        #expect(throws: GatewayConfigurationError.self) { try GatewaySecrets.fromEnvironment(["PUSH_GATEWAY_HMAC_SECRET": ""]) }
        #expect(throws: GatewayConfigurationError.self) { try GatewaySecrets.fromEnvironment(["PUSH_GATEWAY_HMAC_SECRET_FILE": "/nonexistent/x"]) }
    }

    @Test func validationNamesTheMissingSecretForEachEnabledMode() {
        var configuration = GatewayConfiguration(topic: "com.example.app")
        #expect { try configuration.validate(secrets: GatewaySecrets(capabilityKey: Array(repeating: 1, count: 16))) } throws: {
            "\($0)".contains("PUSH_GATEWAY_HMAC_SECRET")
        }
        #expect { try configuration.validate(secrets: GatewaySecrets(hmacSecret: [1])) } throws: {
            "\($0)".contains("PUSH_GATEWAY_CAPABILITY_KEY")
        }
        configuration.authModes = [.hmac]
        #expect(throws: Never.self) { try configuration.validate(secrets: GatewaySecrets(hmacSecret: [1])) }
        configuration.tlsCertificatePath = "c.pem"
        #expect { try configuration.validate(secrets: GatewaySecrets(hmacSecret: [1])) } throws: { "\($0)".contains("--tls-key") }
    }

    @Test func providerKeySpecsSplitAtTheFirstTwoColons() throws {
        #expect(try GatewayProviderKey(commandLineSpec: "ABC123DEFG:TEAM000001:C:/keys/a.p8")
            == GatewayProviderKey(keyID: "ABC123DEFG", teamID: "TEAM000001", path: "C:/keys/a.p8"))
        #expect(throws: GatewayConfigurationError.self) { try GatewayProviderKey(commandLineSpec: "ABC::x") }
        #expect(try GatewayProviderKey(commandLineSpec: "ABC123DEFG:TEAM000001")
            == GatewayProviderKey(keyID: "ABC123DEFG", teamID: "TEAM000001", path: nil), "the key itself is in the environment")
        #expect(throws: GatewayConfigurationError.self) { try GatewayProviderKey(commandLineSpec: "ABC123DEFG") }
    }
}
