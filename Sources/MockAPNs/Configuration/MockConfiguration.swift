import JWTVerify
import PushRules

/// Everything `apns-mock` runs with: server settings, the registry of apps, keys and
/// devices, and fault rules. Load it from a JSON file with ``load(path:base:)`` or build it
/// in Swift, starting from ``makeDefault()`` or ``makeDefault(certsDirectory:)``.
///
/// ```swift
/// var configuration = try MockConfiguration.makeDefault(certsDirectory: "certs")
/// configuration.server.sandboxPort = 0
/// configuration.faults.append(FaultRule(id: "down", action: .unavailable(.shutdown)))
/// let faults = try FaultEngine(rules: configuration.faults)
/// ```
public struct MockConfiguration: Sendable {
    /// Where and how the server listens.
    public var server: MockServerSettings
    /// The apps, provider keys and devices the mock answers from.
    public var registry: MockRegistry
    /// Fault rules, in evaluation order.
    public var faults: [FaultRule]
    /// Validation choices where Apple is silent (docs/fidelity.md).
    public var validation: PushValidator.Settings = .makeDefault()
    /// A push-inspect policy the control API offers as a profile beside the built-in ones
    /// (`GET /profiles`, `GET /pushes/{seq}/findings`); read from `--policy FILE` or the
    /// file's `policy_file` by ``loadPolicy(file:path:)``.
    public var policy: Policy?
    /// What happens after the 200: devices' connectivity, storage, the delivery log
    /// (docs/delivery.md); off by default.
    public var delivery = DeliverySettings()
    /// Accepted alert pushes handed to an iOS Simulator with `xcrun simctl push`
    /// (docs/macos.md); nil, the default, forwards nothing.
    public var simulatorForwarding: SimulatorForwardingSettings?

    /// The bundle ID of the zero-configuration app.
    public static let defaultBundleID = "com.example.app"
    /// The team ID of the zero-configuration keys (also the test client certificate's OU).
    public static let defaultTeamID = "TEAM000001"
    /// The key IDs of the zero-configuration keys, each loaded from `AuthKey_<id>.p8`.
    public static let defaultKeyIDs = ["ABC123DEFG", "XYZ987WXYZ"]

    /// Creates a configuration from its parts.
    public init(server: MockServerSettings, registry: MockRegistry, faults: [FaultRule]) {
        self.server = server
        self.registry = registry
        self.faults = faults
    }

    /// The defaults without key material: default settings (certificates under `certs/`),
    /// the app ``defaultBundleID``, no keys, every well-formed device token accepted, no
    /// faults. Needs no files; a configuration file's sections replace these.
    public static func makeDefault() -> MockConfiguration {
        MockConfiguration(
            server: .makeDefault(),
            registry: MockRegistry(bundleIDs: [defaultBundleID], keys: [:], devices: [:], acceptsUnknownDevices: true),
            faults: [])
    }

    /// The zero-configuration setup `apns-mock` runs with when given no file: both
    /// environments, the keys ``defaultKeyIDs`` of team ``defaultTeamID`` loaded from
    /// `certsDirectory/AuthKey_<id>.p8` (valid in both environments, for every topic), the
    /// app ``defaultBundleID``, any well-formed device token accepted, and the server
    /// certificate and key from `certsDirectory`.
    ///
    /// - Throws: ``ConfigurationError`` with code `.invalidKey` if a key file is missing or unreadable.
    public static func makeDefault(certsDirectory: String) throws(ConfigurationError) -> MockConfiguration {
        var configuration = makeDefault()
        configuration.server = .makeDefault(certsDirectory: certsDirectory)
        for (index, keyID) in defaultKeyIDs.enumerated() {
            let file = ConfigurationPath.join(certsDirectory, "AuthKey_\(keyID).p8")
            let publicKey = try ConfigurationJSON.loadKey(
                file: file, path: JSONField.path(JSONField.path(ConfigurationKey.keys, index), KeyEntryKey.path))
            configuration.registry.keys[keyID] = APNsRegisteredKey(
                publicKey: publicKey, teamID: defaultTeamID, environments: .both, topics: nil)
        }
        return configuration
    }

    /// Checks the settings' ranges and the fault rules' values and unique ids.
    ///
    /// - Throws: ``ConfigurationError`` naming the field, such as `server.sandbox_port`.
    public func validate() throws(ConfigurationError) {
        try server.validate()
        _ = try FaultEngine(rules: faults)
        try simulatorForwarding?.validate()
    }
}
