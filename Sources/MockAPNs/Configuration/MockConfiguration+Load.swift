import APNsCore
import Foundation
import StrictJSON

extension MockConfiguration {
    /// Reads a JSON configuration file (schema in `docs/configuration.md`).
    ///
    /// Every section is optional; a section left out keeps `base`'s value, and a `server`
    /// field left out keeps `base`'s setting. Relative paths in the file (keys, certificates,
    /// capture file) are resolved against the file's folder.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - base: Where absent sections come from; ``makeDefault()`` unless given.
    /// - Throws: ``ConfigurationError`` whose description names the file, the JSON path and
    ///   what was expected: `mock.json: faults[2].action.status: expected an integer 400-599, found 700`.
    public static func load(path: String, base: MockConfiguration = .makeDefault()) throws(ConfigurationError) -> MockConfiguration {
        try load(path: path, base: base, checksSettings: true)
    }

    /// Reads a JSON configuration file whose settings command-line flags may still override,
    /// as ``load(path:base:)`` does but without its last step, the check of the settings
    /// together (ports that must differ…): a flag may resolve what the file alone breaks.
    /// Apply the flags, then call ``validate(readFrom:asRead:)``.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - base: Where absent sections come from.
    /// - Throws: ``ConfigurationError`` naming the file, for a value the file cannot hold at all.
    public static func loadForOverrides(path: String, base: MockConfiguration) throws(ConfigurationError) -> MockConfiguration {
        try load(path: path, base: base, checksSettings: false)
    }

    /// Checks, once, a configuration read with ``loadForOverrides(path:base:)`` and then
    /// changed by command-line flags, as ``validate()`` does. An error the file makes on its
    /// own (the flags changed nothing it involves) names the file, as ``load(path:base:)``
    /// reports it; one the flags brought in does not.
    ///
    /// - Parameters:
    ///   - file: The file the configuration was read from.
    ///   - asRead: The configuration as read, before the flags.
    /// - Throws: ``ConfigurationError`` naming the field, such as `server.sandbox_port`.
    public func validate(readFrom file: String, asRead: MockConfiguration) throws(ConfigurationError) {
        do {
            try validate()
        } catch {
            do {
                try asRead.validate()
            } catch let fileError where fileError == error && fileError.message == error.message {
                throw error.inFile(file)
            } catch {}
            throw error
        }
    }

    private static func load(path: String, base: MockConfiguration, checksSettings: Bool) throws(ConfigurationError) -> MockConfiguration {
        let bytes: [UInt8]
        do {
            bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw ConfigurationError(.unreadableFile, path: "", "cannot read configuration file: \(error.localizedDescription)", file: path)
        }
        do {
            return try decode(
                ConfigurationJSON.parse(bytes), baseDirectory: ConfigurationPath.directory(of: path), base: base,
                checksSettings: checksSettings)
        } catch {
            throw error.inFile(path)
        }
    }

    /// Decodes a configuration document already parsed.
    ///
    /// - Parameters:
    ///   - json: The document's root object.
    ///   - baseDirectory: The folder relative paths are resolved against; nil leaves them
    ///     relative to the working directory.
    ///   - base: Where absent sections come from.
    /// - Throws: ``ConfigurationError`` naming the JSON path.
    public static func decode(
        _ json: JSONValue, baseDirectory: String?, base: MockConfiguration = .makeDefault()
    ) throws(ConfigurationError) -> MockConfiguration {
        try decode(json, baseDirectory: baseDirectory, base: base, checksSettings: true)
    }

    private static func decode(
        _ json: JSONValue, baseDirectory: String?, base: MockConfiguration, checksSettings: Bool
    ) throws(ConfigurationError) -> MockConfiguration {
        let root = try JSONObjectReader(json, path: "", allowed: ConfigurationKey.all)
        var configuration = base
        if let server = root.value(ConfigurationKey.server) {
            configuration.server = try decodeServer(server, baseDirectory: baseDirectory, base: base.server)
        }
        configuration.registry = try ConfigurationJSON.decodeRegistry(root, baseDirectory: baseDirectory, base: base.registry)
        if let faults = root.value(ConfigurationKey.faults) {
            configuration.faults = try FaultRule.decodeList(faults, path: root.path(ConfigurationKey.faults))
        }
        if let validation = root.value(ConfigurationKey.validation) {
            configuration.validation = try decodeValidation(validation, base: base.validation)
        }
        if let file = try root.string(ConfigurationKey.policyFile) {
            configuration.policy = try loadPolicy(
                file: ConfigurationPath.resolve(file, against: baseDirectory), path: ConfigurationKey.policyFile)
        }
        if let delivery = root.value(ConfigurationKey.delivery) {
            configuration.delivery = try ConfigurationJSON.decodeDelivery(delivery, base: base.delivery)
        }
        if let forwarding = root.value(ConfigurationKey.simulatorForwarding) {
            configuration.simulatorForwarding = try ConfigurationJSON.decodeSimulatorForwarding(forwarding, base: base.simulatorForwarding)
        }
        if checksSettings { try configuration.server.validate() }
        return configuration
    }

    /// The `server` section as JSON, with the field names the file uses.
    public var serverJSON: JSONValue {
        let settings = server
        var members: [String: JSONValue] = [
            ServerSettingsKey.host: .string(settings.host),
            ServerSettingsKey.productionPort: .integer(Int64(settings.productionPort)),
            ServerSettingsKey.sandboxPort: .integer(Int64(settings.sandboxPort)),
            ServerSettingsKey.controlPort: .integer(Int64(settings.controlPort)),
            ServerSettingsKey.channelSandboxPort: .integer(Int64(settings.channelSandboxPort)),
            ServerSettingsKey.channelProductionPort: .integer(Int64(settings.channelProductionPort)),
            ServerSettingsKey.tls: .bool(settings.tlsEnabled),
            ServerSettingsKey.certificate: .string(settings.certificatePath),
            ServerSettingsKey.privateKey: .string(settings.privateKeyPath),
            ServerSettingsKey.maxConcurrentStreams: .integer(Int64(settings.maxConcurrentStreams)),
            ServerSettingsKey.dropStreamLimitAfterRejection: .bool(settings.dropsStreamLimitAfterRejection),
            ServerSettingsKey.headerTableSize: .integer(Int64(settings.headerTableSize)),
            ServerSettingsKey.initialWindowSize: .integer(Int64(settings.initialWindowSize)),
            ServerSettingsKey.maxFrameSize: .integer(Int64(settings.maxFrameSize)),
            ServerSettingsKey.maxHeaderListSize: .integer(Int64(settings.maxHeaderListSize)),
            ServerSettingsKey.captureRingSize: .integer(Int64(settings.captureRingSize)),
            ServerSettingsKey.captureFsync: .bool(settings.captureSyncsEachBatch),
            ServerSettingsKey.explanationHeader: .bool(settings.explanationHeader),
            ServerSettingsKey.maxConnections: .integer(Int64(settings.maxConnections)),
            ServerSettingsKey.controlAllowedHosts: .array(settings.controlAllowedHosts.map(JSONValue.string)),
        ]
        for (key, timeout) in [(ServerSettingsKey.idleTimeoutSeconds, settings.idleTimeout),
                               (ServerSettingsKey.requestReadTimeoutSeconds, settings.requestReadTimeout),
                               (ServerSettingsKey.requestHeadersTimeoutSeconds, settings.requestHeadersTimeout),
                               (ServerSettingsKey.connectionPrefaceTimeoutSeconds, settings.connectionPrefaceTimeout)] {
            let milliseconds = timeout.faultMilliseconds
            members[key] = milliseconds % 1000 == 0 ? .integer(milliseconds / 1000) : .double(Double(milliseconds) / 1000)
        }
        if let path = settings.clientCAPath { members[ServerSettingsKey.clientCA] = .string(path) }
        if let path = settings.captureFilePath { members[ServerSettingsKey.captureFile] = .string(path) }
        if let budget = settings.connectionErrorBudget { members[ServerSettingsKey.connectionErrorBudget] = .integer(Int64(budget)) }
        return .object(members)
    }

    private static func decodeServer(
        _ json: JSONValue, baseDirectory: String?, base: MockServerSettings
    ) throws(ConfigurationError) -> MockServerSettings {
        let object = try JSONObjectReader(json, path: ServerSettingsKey.section, allowed: ServerSettingsKey.all)
        var settings = base
        func path(_ key: String) throws(ConfigurationError) -> String? {
            try object.string(key).map { ConfigurationPath.resolve($0, against: baseDirectory) }
        }
        func port(_ key: String) throws(ConfigurationError) -> Int? {
            try object.integer(key, in: 0...65535).map { Int($0) }
        }
        if let host = try object.string(ServerSettingsKey.host) { settings.host = host }
        if let value = try port(ServerSettingsKey.productionPort) { settings.productionPort = value }
        if let value = try port(ServerSettingsKey.sandboxPort) { settings.sandboxPort = value }
        if let value = try port(ServerSettingsKey.controlPort) { settings.controlPort = value }
        if let value = try port(ServerSettingsKey.channelSandboxPort) { settings.channelSandboxPort = value }
        if let value = try port(ServerSettingsKey.channelProductionPort) { settings.channelProductionPort = value }
        if let value = try object.bool(ServerSettingsKey.tls) { settings.tlsEnabled = value }
        if let value = try path(ServerSettingsKey.certificate) { settings.certificatePath = value }
        if let value = try path(ServerSettingsKey.privateKey) { settings.privateKeyPath = value }
        if let value = try path(ServerSettingsKey.clientCA) { settings.clientCAPath = value }
        if let value = try object.integer(ServerSettingsKey.maxConcurrentStreams, in: 1...Int64(MockServerSettings.maximumConcurrentStreams)) {
            settings.maxConcurrentStreams = Int(value)
        }
        if let value = try object.bool(ServerSettingsKey.dropStreamLimitAfterRejection) {
            settings.dropsStreamLimitAfterRejection = value
        }
        let http2Settings: [(String, ClosedRange<Int>, WritableKeyPath<MockServerSettings, Int>)] = [
            (ServerSettingsKey.headerTableSize, MockServerSettings.headerTableSizes, \.headerTableSize),
            (ServerSettingsKey.initialWindowSize, MockServerSettings.initialWindowSizes, \.initialWindowSize),
            (ServerSettingsKey.maxFrameSize, MockServerSettings.maxFrameSizes, \.maxFrameSize),
            (ServerSettingsKey.maxHeaderListSize, MockServerSettings.maxHeaderListSizes, \.maxHeaderListSize),
        ]
        for (key, range, field) in http2Settings {
            if let value = try object.integer(key, in: Int64(range.lowerBound)...Int64(range.upperBound)) {
                settings[keyPath: field] = Int(value)
            }
        }
        if let seconds = try object.number(ServerSettingsKey.idleTimeoutSeconds, in: 0.001...31_536_000) {
            settings.idleTimeout = .milliseconds((seconds * 1000).rounded())
        }
        let timeouts: [(String, WritableKeyPath<MockServerSettings, Duration>)] = [
            (ServerSettingsKey.requestReadTimeoutSeconds, \.requestReadTimeout),
            (ServerSettingsKey.requestHeadersTimeoutSeconds, \.requestHeadersTimeout),
            (ServerSettingsKey.connectionPrefaceTimeoutSeconds, \.connectionPrefaceTimeout),
        ]
        for (key, field) in timeouts {
            if let seconds = try object.number(key, in: MockServerSettings.timeoutSeconds) {
                settings[keyPath: field] = .milliseconds((seconds * 1000).rounded())
            }
        }
        if let value = try object.integer(ServerSettingsKey.maxConnections, in: 1...Int64(Int32.max)) {
            settings.maxConnections = Int(value)
        }
        if let value = try object.integer(ServerSettingsKey.connectionErrorBudget, in: 1...Int64(Int32.max)) {
            settings.connectionErrorBudget = Int(value)
        }
        if let value = try path(ServerSettingsKey.captureFile) { settings.captureFilePath = value }
        if let value = try object.integer(ServerSettingsKey.captureRingSize, in: 0...Int64(Int32.max)) {
            settings.captureRingSize = Int(value)
        }
        if let value = try object.bool(ServerSettingsKey.captureFsync) { settings.captureSyncsEachBatch = value }
        if let value = try object.bool(ServerSettingsKey.explanationHeader) { settings.explanationHeader = value }
        if let value = try object.stringArray(ServerSettingsKey.controlAllowedHosts) { settings.controlAllowedHosts = value }
        return settings
    }

    private static func decodeValidation(
        _ json: JSONValue, base: PushValidator.Settings
    ) throws(ConfigurationError) -> PushValidator.Settings {
        let object = try JSONObjectReader(json, path: ValidationSettingsKey.section, allowed: ValidationSettingsKey.all)
        var settings = base
        if let value = try object.bool(ValidationSettingsKey.acceptMissingPushType) { settings.acceptsMissingPushType = value }
        if let value = try object.bool(ValidationSettingsKey.rejectImmediateBackgroundPushes) {
            settings.rejectsImmediateBackgroundPushes = value
        }
        if let value = try object.bool(ValidationSettingsKey.rejectMalformedPayloads) { settings.rejectsMalformedPayloads = value }
        if let value = try object.integer(ValidationSettingsKey.payloadNestingLimit, in: 1...512) {
            settings.payloadNestingLimit = Int(value)
        }
        if let names = try object.stringArray(ValidationSettingsKey.goAwayReasons) {
            var reasons: Set<APNsReason> = []
            for (index, name) in names.enumerated() {
                let reason = APNsReason(wireValue: name)
                guard reason.status != nil else {
                    throw ConfigurationError(
                        .invalidValue, path: JSONField.path(object.path(ValidationSettingsKey.goAwayReasons), index),
                        "expected an APNs reason such as \"BadCertificate\", found \"\(name)\"")
                }
                reasons.insert(reason)
            }
            settings.goAwayReasons = reasons
        }
        return settings
    }
}
