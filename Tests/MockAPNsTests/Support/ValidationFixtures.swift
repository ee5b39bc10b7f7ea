import APNsCore
import Foundation
import HTTPTransport
import JWTVerify
import MockAPNs
import StrictJSON
import Synchronization

/// A registry, keys, devices and a valid push for validation tests: each test changes one
/// thing about the valid push and checks the answer.
enum ValidationFixtures {
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // MockAPNsTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    static func certificatePath(_ name: String) -> String {
        packageRoot.appendingPathComponent("certs").appendingPathComponent(name).path
    }

    static let bundleID = "com.example.app"
    static let otherBundleID = "com.example.other"
    static let teamID = "DEF123GHIJ"
    static let otherTeamID = "TEAM000002"
    /// Team-scoped, both environments, key ABC123DEFG.
    static let keyID = "ABC123DEFG"
    /// Another team's key, XYZ987WXYZ.
    static let otherTeamKeyID = "XYZ987WXYZ"
    /// Key ABC123DEFG's public half registered again as production-only.
    static let productionOnlyKeyID = "PROD000001"
    /// Key ABC123DEFG's public half registered again as specific to the other app.
    static let topicKeyID = "TOPIC00001"

    /// The clock all tests start at.
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static let device = token("aa")
    static let productionDevice = token("bb")
    static let otherAppDevice = token("cc")
    static let unregisteredDevice = token("dd")
    static let expiredDevice = token("ee")
    static let unknownDevice = token("ff")
    /// When `unregisteredDevice` was unregistered; the 410 timestamp is this in ms.
    static let unregisteredSince = Date(timeIntervalSince1970: 1_700_000_000.123)

    static func token(_ pair: String) -> DeviceToken {
        // A fixed, valid literal; a failure here is a broken fixture, not a test result.
        DeviceToken(String(repeating: pair, count: 32)) ?? DeviceToken("00")!
    }

    static func privateKey() throws -> ES256PrivateKey {
        try ES256PrivateKey(contentsOfFile: certificatePath("AuthKey_ABC123DEFG.p8"))
    }

    static func otherPrivateKey() throws -> ES256PrivateKey {
        try ES256PrivateKey(contentsOfFile: certificatePath("AuthKey_XYZ987WXYZ.p8"))
    }

    static func registry(acceptsUnknownDevices: Bool = false) throws -> MockRegistry {
        let key = try privateKey().publicKey
        let otherKey = try otherPrivateKey().publicKey
        let devices: [RegisteredDevice] = [
            RegisteredDevice(token: device, bundleID: bundleID, environment: .sandbox),
            RegisteredDevice(token: productionDevice, bundleID: bundleID, environment: .production),
            RegisteredDevice(token: otherAppDevice, bundleID: otherBundleID, environment: .sandbox),
            RegisteredDevice(token: unregisteredDevice, bundleID: bundleID, environment: .sandbox,
                             state: .unregistered(since: unregisteredSince)),
            RegisteredDevice(token: expiredDevice, bundleID: bundleID, environment: .sandbox, state: .expired),
        ]
        return MockRegistry(
            bundleIDs: [bundleID, otherBundleID],
            keys: [
                keyID: APNsRegisteredKey(publicKey: key, teamID: teamID, environments: .both),
                otherTeamKeyID: APNsRegisteredKey(publicKey: otherKey, teamID: otherTeamID, environments: .both),
                productionOnlyKeyID: APNsRegisteredKey(publicKey: key, teamID: teamID, environments: .production),
                topicKeyID: APNsRegisteredKey(publicKey: key, teamID: teamID, environments: .both, topics: [otherBundleID]),
            ],
            devices: Dictionary(uniqueKeysWithValues: devices.map { ($0.token, $0) }),
            acceptsUnknownDevices: acceptsUnknownDevices)
    }

    static func validator(
        settings: PushValidator.Settings = .makeDefault(), acceptsUnknownDevices: Bool = false, clock: TestClock = TestClock()
    ) throws -> PushValidator {
        PushValidator(registry: try registry(acceptsUnknownDevices: acceptsUnknownDevices), settings: settings, now: clock.read)
    }

    /// A provider token for `keyID`, signed with the matching private key.
    static func providerToken(
        keyID: String = keyID, teamID: String = teamID, issuedAt: Date = start, includesType: Bool = false
    ) throws -> String {
        let key = keyID == otherTeamKeyID ? try otherPrivateKey() : try privateKey()
        return try JWTSigner(key: key, keyID: keyID, includesType: includesType)
            .makeProviderToken(teamID: teamID, issuedAt: issuedAt)
    }

    /// A signed token with arbitrary claims.
    static func providerToken(claims: [String: JSONValue], keyID: String = keyID) throws -> String {
        try JWTSigner(key: try privateKey(), keyID: keyID).sign(claims: claims)
    }

    static let alertPayload = #"{"aps":{"alert":"Hello"}}"#

    /// A push that is accepted: token auth, alert, to the sandbox device.
    static func request(
        token authorization: String?, payload: String = alertPayload, extraHeaders: [(String, String)] = []
    ) -> PushRequest {
        var headers = HTTPHeaders()
        if let authorization { headers.add(name: APNsHeaderName.authorization, value: "bearer \(authorization)") }
        headers.add(name: APNsHeaderName.topic, value: bundleID)
        headers.add(name: APNsHeaderName.pushType, value: APNsPushType.alert.rawValue)
        for (name, value) in extraHeaders { headers.add(name: name, value: value) }
        return PushRequest(
            method: "POST", path: "/3/device/\(device.hex)", headers: headers, body: Array(payload.utf8),
            environment: .sandbox, connectionID: 1, receivedAt: start)
    }

    /// A push from a certificate connection: no authorization header.
    static func certificateRequest(payload: String = alertPayload) -> PushRequest {
        var request = request(token: nil, payload: payload)
        request.headers.remove(name: APNsHeaderName.topic)
        return request
    }

    /// A certificate without the topics extension: bundle ID as UID, both environments, so it
    /// covers the bundle ID alone (`certs/client.pem` also lists `.voip` and `.complication`).
    static let certificateIdentity = CertificateIdentity(bundleID: bundleID, environments: [.sandbox, .production])
}

/// A clock tests move by hand.
final class TestClock: Sendable {
    private let now: Mutex<Date>

    init(_ start: Date = ValidationFixtures.start) {
        now = Mutex(start)
    }

    var read: @Sendable () -> Date { { [self] in now.withLock { $0 } } }

    func advance(by seconds: TimeInterval) {
        now.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}

extension PushRequest {
    /// Replaces every value of `name` with `value`, or removes the header when nil.
    mutating func set(_ name: String, _ value: String?) {
        headers.remove(name: name)
        if let value { headers.add(name: name, value: value) }
    }
}
