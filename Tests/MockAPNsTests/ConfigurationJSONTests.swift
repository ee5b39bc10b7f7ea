import APNsCore
import Foundation
import JWTVerify
import MockAPNs
import StrictJSON
import Testing

@Suite struct ConfigurationJSONTests {
    typealias Fixtures = ConfigurationFixtures

    /// Through text, as the control API sends it.
    func reparse(_ value: JSONValue) throws -> JSONValue {
        try ConfigurationJSON.parse(Array(value.description.utf8))
    }

    func devices() throws -> [DeviceToken: RegisteredDevice] {
        let tokens = try ["01", "0a0b", String(repeating: "ff", count: 80)].map { try #require(DeviceToken($0)) }
        return [
            tokens[0]: RegisteredDevice(token: tokens[0], bundleID: "com.example.app", environment: .sandbox),
            tokens[1]: RegisteredDevice(
                token: tokens[1], bundleID: "com.example.app", environment: .production,
                state: .unregistered(since: Date(timeIntervalSince1970: 1_714_564_800.123))),
            tokens[2]: RegisteredDevice(token: tokens[2], bundleID: "com.example.other", environment: .sandbox, state: .expired),
        ]
    }

    @Test func devicesRoundTrip() throws {
        let original = try devices()
        let decoded = try ConfigurationJSON.decodeDevices(try reparse(ConfigurationJSON.encodeDevices(original)))
        #expect(decoded == original)
    }

    @Test func devicesEncodeReadably() throws {
        let token = try #require(DeviceToken("0A0B"))
        let encoded = ConfigurationJSON.encodeDevices([token: RegisteredDevice(
            token: token, bundleID: "com.example.app", environment: .production,
            state: .unregistered(since: Date(timeIntervalSince1970: 1_714_564_800.5)))])
        #expect(encoded.description == #"[{"bundle_id":"com.example.app","environment":"production","state":"unregistered","token":"0a0b","unregistered_since":"2024-05-01T12:00:00.500Z"}]"#)
    }

    /// Times from 1970 to the end of 9999 are taken and kept to the millisecond; anything
    /// else is a located error. Past `Int64` milliseconds, a time is refused too, so that
    /// listing it or pushing to its device cannot stop the mock.
    @Test(arguments: [
        ("9223372036854775807", false), ("253402300800000", false), ("-1", false), (#""1969-12-31T23:59:59Z""#, false),
        ("253402300799999", true), (#""9999-12-31T23:59:59.999Z""#, true), ("0", true),
    ])
    func unregisteredSinceIsBoundedTo1970Through9999(since: String, accepted: Bool) throws {
        let text = #"[{"token":"0a0b","bundle_id":"com.example.app","environment":"sandbox","state":"unregistered","unregistered_since":"#
            + since + "}]"
        let json = try ConfigurationJSON.parse(Array(text.utf8))
        guard accepted else {
            #expect(throws: ConfigurationError(.invalidValue, path: "devices[0].unregistered_since", "")) {
                try ConfigurationJSON.decodeDevices(json)
            }
            return
        }
        let decoded = try ConfigurationJSON.decodeDevices(json)
        #expect(try ConfigurationJSON.decodeDevices(try reparse(ConfigurationJSON.encodeDevices(decoded))) == decoded)
    }

    /// Through the Swift API any `Date` can be set; listing it clamps instead of trapping.
    @Test func devicesUnregisteredBeyondInt64MillisecondsStillEncode() throws {
        let token = try #require(DeviceToken("0a0b"))
        for since in [Date(timeIntervalSince1970: 1e300), Date(timeIntervalSince1970: -1e300)] {
            let encoded = ConfigurationJSON.encodeDevices([token: RegisteredDevice(
                token: token, bundleID: "com.example.app", environment: .sandbox, state: .unregistered(since: since))])
            #expect(encoded.description.contains(#""unregistered_since":""#))
        }
    }

    @Test func keysRoundTripWithoutKeyMaterial() throws {
        let keys: [String: APNsRegisteredKey] = [
            "ABC123DEFG": APNsRegisteredKey(publicKey: try Fixtures.publicKey("ABC123DEFG"), teamID: "TEAM000001"),
            "XYZ987WXYZ": APNsRegisteredKey(
                publicKey: try Fixtures.publicKey("XYZ987WXYZ"), teamID: "TEAM000002", environments: .production,
                topics: ["com.example.app", "com.example.other"]),
        ]
        let encoded = ConfigurationJSON.encodeKeys(keys)
        let text = encoded.description
        #expect(!text.contains("PRIVATE") && !text.contains(#""d":"#))
        guard case .array(let entries) = encoded, case .object(let first) = entries[0], case .object(let jwk)? = first["public_key"] else {
            Issue.record("unexpected shape: \(text)")
            return
        }
        #expect(first["key_id"] == "ABC123DEFG" && first["team_id"] == "TEAM000001" && first["environment"] == "both")
        #expect(first["topics"] == nil)
        #expect(jwk["kty"] == "EC" && jwk["crv"] == "P-256" && jwk["kid"] == "ABC123DEFG")

        let decoded = try ConfigurationJSON.decodeKeys(try reparse(encoded))
        #expect(Set(decoded.keys) == Set(keys.keys))
        for (keyID, key) in keys {
            let other = try #require(decoded[keyID])
            #expect(other.teamID == key.teamID && other.environments == key.environments && other.topics == key.topics)
            #expect(other.publicKey.jwk() == key.publicKey.jwk())
        }
    }

    @Test func keysAcceptPEMTextAndRejectBadMaterial() throws {
        let pem = try String(contentsOfFile: Fixtures.certs + "/AuthKey_ABC123DEFG.pub.pem", encoding: .utf8)
        let json: JSONValue = [["key_id": "ABC123DEFG", "team_id": "TEAM000001", "public_key": .string(pem)]]
        #expect(try ConfigurationJSON.decodeKeys(json)["ABC123DEFG"]?.publicKey.jwk() == (try Fixtures.publicKey("ABC123DEFG")).jwk())
        let badJWK: JSONValue = [["key_id": "ABC123DEFG", "team_id": "TEAM000001", "public_key": ["kty": "RSA"]]]
        #expect(throws: ConfigurationError(.invalidKey, path: "keys[0].public_key", "")) { try ConfigurationJSON.decodeKeys(badJWK) }
        let both: JSONValue = [["key_id": "ABC123DEFG", "team_id": "TEAM000001", "public_key": .string(pem), "path": "x"]]
        #expect(throws: ConfigurationError(.invalidValue, path: "keys[0].public_key", "")) { try ConfigurationJSON.decodeKeys(both) }
    }

    @Test func faultsRoundTrip() throws {
        let rules = [
            FaultRule(id: "a", match: FaultMatch(pushType: .background), count: 2, action: .delay(.milliseconds(10))),
            FaultRule(id: "b", probability: 0.1, action: .goAway(errorCode: .noError, reason: .unknown("Custom"))),
        ]
        #expect(try ConfigurationJSON.decodeFaults(try reparse(ConfigurationJSON.encodeFaults(rules))) == rules)
    }

    @Test func registryRoundTrips() throws {
        let registry = MockRegistry(
            bundleIDs: ["com.example.app", "com.example.other"],
            keys: ["ABC123DEFG": APNsRegisteredKey(
                publicKey: try Fixtures.publicKey("ABC123DEFG"), teamID: "TEAM000001", environments: .sandbox,
                topics: ["com.example.other"])],
            devices: try devices(), acceptsUnknownDevices: false)
        let decoded = try ConfigurationJSON.decodeRegistry(try reparse(ConfigurationJSON.encodeRegistry(registry)))
        #expect(decoded.bundleIDs == registry.bundleIDs && decoded.devices == registry.devices)
        #expect(decoded.acceptsUnknownDevices == false)
        #expect(decoded.keys["ABC123DEFG"]?.topics == ["com.example.other"])
        #expect(decoded.keys["ABC123DEFG"]?.environments == .sandbox)
    }

    @Test func theExampleRoundTripsThroughTheRegistryJSON() throws {
        let loaded = try MockConfiguration.load(path: Fixtures.example)
        let again = try ConfigurationJSON.decodeRegistry(try reparse(ConfigurationJSON.encodeRegistry(loaded.registry)))
        #expect(again.devices == loaded.registry.devices && again.bundleIDs == loaded.registry.bundleIDs)
        #expect(try MockConfiguration.decode(try reparse(["server": loaded.serverJSON]), baseDirectory: nil).server == loaded.server)
    }

    /// Timeouts that are not whole seconds survive the server section's JSON.
    @Test func fractionalTimeoutsRoundTripThroughTheServerJSON() throws {
        var configuration = try MockConfiguration.load(path: Fixtures.example)
        configuration.server.idleTimeout = .milliseconds(1500)
        configuration.server.requestReadTimeout = .milliseconds(2250)
        let server = try MockConfiguration.decode(try reparse(["server": configuration.serverJSON]), baseDirectory: nil).server
        #expect(server.idleTimeout == .milliseconds(1500) && server.requestReadTimeout == .milliseconds(2250))
    }

    /// The connection limits and the error budget survive the server section's JSON.
    @Test func connectionLimitsRoundTripThroughTheServerJSON() throws {
        var configuration = try MockConfiguration.load(path: Fixtures.example)
        configuration.server.connectionPrefaceTimeout = .milliseconds(750)
        configuration.server.requestHeadersTimeout = .seconds(4)
        configuration.server.maxConnections = 12
        configuration.server.connectionErrorBudget = 3
        let server = try MockConfiguration.decode(try reparse(["server": configuration.serverJSON]), baseDirectory: nil).server
        #expect(server == configuration.server)
    }

    @Test func parseErrorsGiveLineAndColumn() {
        #expect(throws: ConfigurationError(.invalidJSON, path: "", "")) { try ConfigurationJSON.parse(Array("{\n\"a\": tru }".utf8)) }
        do {
            _ = try ConfigurationJSON.parse(Array("{\n\"é\": tru }".utf8))
            Issue.record("expected a parse error")
        } catch {
            #expect(error.message.contains("line 2, column 6"), "\(error)")
        }
    }
}
