import StrictJSON

extension ConfigurationJSON {
    /// The whole registry: `{"apps":[…],"accept_unknown_devices":…,"keys":[…],"devices":[…]}`,
    /// with the same field names as the configuration file.
    public static func encodeRegistry(_ registry: MockRegistry) -> JSONValue {
        [
            ConfigurationKey.apps: .array(registry.bundleIDs.sorted().map(JSONValue.string)),
            ConfigurationKey.acceptUnknownDevices: .bool(registry.acceptsUnknownDevices),
            ConfigurationKey.keys: encodeKeys(registry.keys),
            ConfigurationKey.devices: encodeDevices(registry.devices),
        ]
    }

    /// Decodes a registry object. Fields left out keep `base`'s values, except that listing
    /// devices without `accept_unknown_devices` turns unknown tokens away.
    ///
    /// - Parameters:
    ///   - json: The object.
    ///   - path: Its JSON path, for errors; empty at the document root.
    ///   - baseDirectory: The folder relative key paths are resolved against.
    ///   - base: The registry that absent fields are taken from.
    /// - Throws: ``ConfigurationError`` naming the field; `.duplicateID` for a bundle ID, key
    ///   ID or device token listed twice.
    public static func decodeRegistry(
        _ json: JSONValue, path: String = "", baseDirectory: String? = nil, base: MockRegistry = MockRegistry()
    ) throws(ConfigurationError) -> MockRegistry {
        let object = try JSONObjectReader(json, path: path, allowed: registryFields)
        return try decodeRegistry(object, baseDirectory: baseDirectory, base: base)
    }

    static let registryFields = [
        ConfigurationKey.apps, ConfigurationKey.acceptUnknownDevices, ConfigurationKey.keys, ConfigurationKey.devices,
    ]

    /// The registry fields of an object that may hold others (the configuration file's root).
    static func decodeRegistry(
        _ object: JSONObjectReader, baseDirectory: String?, base: MockRegistry
    ) throws(ConfigurationError) -> MockRegistry {
        var registry = base
        if let apps = try object.stringArray(ConfigurationKey.apps) {
            var bundleIDs: Set<String> = []
            for (index, app) in apps.enumerated() {
                let path = JSONField.path(object.path(ConfigurationKey.apps), index)
                if app.isEmpty || app.contains(where: \.isWhitespace) {
                    throw ConfigurationError(
                        .invalidValue, path: path, "expected a bundle ID such as \"com.example.app\", \(JSONField.found(.string(app)))")
                }
                // Refused as a repeated key ID or device token is: a copy-paste slip, not a wish.
                guard bundleIDs.insert(app).inserted else {
                    throw ConfigurationError(.duplicateID, path: path, "duplicate bundle ID \(JSONValue.string(app))")
                }
            }
            registry.bundleIDs = bundleIDs
        }
        if let keys = object.value(ConfigurationKey.keys) {
            registry.keys = try decodeKeys(
                keys, path: object.path(ConfigurationKey.keys), baseDirectory: baseDirectory, bundleIDs: registry.bundleIDs)
        }
        if let devices = object.value(ConfigurationKey.devices) {
            registry.devices = try decodeDevices(devices, path: object.path(ConfigurationKey.devices), bundleIDs: registry.bundleIDs)
            registry.acceptsUnknownDevices = registry.devices.isEmpty
        }
        if let accept = try object.bool(ConfigurationKey.acceptUnknownDevices) {
            registry.acceptsUnknownDevices = accept
        }
        return registry
    }
}
