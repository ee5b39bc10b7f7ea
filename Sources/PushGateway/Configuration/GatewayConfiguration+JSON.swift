import Foundation
import StrictJSON

extension GatewayConfiguration {
    /// The keys a configuration file may have (docs/push-gateway.md).
    static let fileKeys: Set<String> = [
        "host", "port", "tls_cert", "tls_key", "topic", "auth_key", "apns_production", "apns_sandbox", "apns_ca",
        "auth_modes", "rate_limits", "apns_attempts", "apns_timeout_ms", "max_body_bytes", "threads", "max_connections",
        "max_connections_per_source", "max_concurrent_streams", "request_read_timeout_seconds",
    ]

    /// Reads a JSON configuration file over `base`: keys present replace `base`'s values.
    ///
    /// ```json
    /// {"topic":"com.example.hermes","auth_key":{"key_id":"ABC123DEFG","team_id":"TEAM000001","path":"AuthKey.p8"},
    ///  "auth_modes":["hmac","capability"],"rate_limits":{"per_device":{"burst":10,"per_second":0.5}}}
    /// ```
    ///
    /// - Throws: ``GatewayConfigurationError`` naming the file and the key for unreadable
    ///   files, invalid JSON, unknown keys, wrong types, and secrets (which belong in the
    ///   environment).
    public static func load(path: String, base: GatewayConfiguration) throws(GatewayConfigurationError) -> GatewayConfiguration {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw GatewayConfigurationError("\(path): cannot read the configuration file")
        }
        do {
            return try decode(Array(data), base: base)
        } catch {
            throw GatewayConfigurationError("\(path): \(error.message)")
        }
    }

    /// Decodes configuration JSON over `base`; see ``load(path:base:)``.
    public static func decode(_ bytes: [UInt8], base: GatewayConfiguration) throws(GatewayConfigurationError) -> GatewayConfiguration {
        let root: JSONValue
        do {
            root = try JSONParser.parse(bytes, maximumDepth: 8)
        } catch {
            throw GatewayConfigurationError("not valid JSON: \(error)")
        }
        guard case .object(let members) = root else { throw GatewayConfigurationError("the top level must be a JSON object") }
        for key in members.keys.sorted() where !fileKeys.contains(key) {
            if key.contains("secret") || key.contains("capability_key") {
                throw GatewayConfigurationError("\"\(key)\": secrets are read only from the environment (\(GatewaySecrets.hmacSecretVariable), \(GatewaySecrets.capabilityKeyVariable) or their _FILE forms)")
            }
            throw GatewayConfigurationError("unknown key \"\(key)\"; known keys: \(fileKeys.sorted().joined(separator: ", "))")
        }
        var configuration = base
        let reader = ConfigReader(members: members, path: "")
        if let host = try reader.string("host") { configuration.host = host }
        if let port = try reader.integer("port", in: 0...65535) { configuration.port = port }
        if let path = try reader.string("tls_cert") { configuration.tlsCertificatePath = path }
        if let path = try reader.string("tls_key") { configuration.tlsPrivateKeyPath = path }
        if let topic = try reader.string("topic") { configuration.topic = topic }
        switch members["auth_key"] {
        case nil: break
        case .string(let spec)?: configuration.providerKey = try GatewayProviderKey(commandLineSpec: spec)
        case .object(let key)?:
            let keyReader = ConfigReader(members: key, path: "auth_key.")
            try keyReader.rejectUnknown(["key_id", "team_id", "path"])
            configuration.providerKey = GatewayProviderKey(
                keyID: try keyReader.requiredString("key_id"), teamID: try keyReader.requiredString("team_id"),
                path: try keyReader.requiredString("path"))
        case let other?:
            throw GatewayConfigurationError("\"auth_key\": expected \"KEY_ID:TEAM_ID:PATH\" or an object, found \(other.typeName)")
        }
        if let url = try reader.string("apns_production") { configuration.productionURL = url }
        if let url = try reader.string("apns_sandbox") { configuration.sandboxURL = url }
        if let path = try reader.string("apns_ca") { configuration.apnsCAPath = path }
        switch members["auth_modes"] {
        case nil: break
        case .array(let items)?:
            var names: [String] = []
            for item in items {
                guard let name = item.stringValue else { throw GatewayConfigurationError("\"auth_modes\": expected strings") }
                names.append(name)
            }
            configuration.authModes = names.isEmpty ? [] : try GatewayAuthMode.parseList(names.joined(separator: ","))
        case .string(let list)?: configuration.authModes = try GatewayAuthMode.parseList(list)
        case let other?: throw GatewayConfigurationError("\"auth_modes\": expected a list such as [\"hmac\",\"capability\"], found \(other.typeName)")
        }
        switch members["rate_limits"] {
        case nil: break
        case .object(let limits)?:
            let limitsReader = ConfigReader(members: limits, path: "rate_limits.")
            try limitsReader.rejectUnknown(["per_device", "total", "register", "per_source"])
            if let limit = try limitsReader.rateLimit("per_device") { configuration.perDeviceRateLimit = limit }
            if let limit = try limitsReader.rateLimit("total") { configuration.totalRateLimit = limit }
            if let limit = try limitsReader.rateLimit("register") { configuration.registerRateLimit = limit }
            if let limit = try limitsReader.rateLimit("per_source") { configuration.perSourceRateLimit = limit }
        case let other?: throw GatewayConfigurationError("\"rate_limits\": expected an object, found \(other.typeName)")
        }
        if let attempts = try reader.integer("apns_attempts", in: 1...maximumAPNsAttempts) { configuration.apnsAttempts = attempts }
        if let milliseconds = try reader.integer("apns_timeout_ms", in: allowedAPNsTimeoutMilliseconds) { configuration.apnsTimeout = .milliseconds(milliseconds) }
        if let size = try reader.integer("max_body_bytes", in: 256...65_536) { configuration.maximumBodySize = size }
        if let threads = try reader.integer("threads", in: 1...maximumEventLoopThreads) { configuration.eventLoopThreads = threads }
        if let count = try reader.integer("max_connections", in: maxConnectionsRange) { configuration.maxConnections = count }
        if let count = try reader.integer("max_connections_per_source", in: maxConnectionsRange) {
            configuration.maxConnectionsPerSource = count
        }
        if let count = try reader.integer("max_concurrent_streams", in: maxConcurrentStreamsRange) {
            configuration.maxConcurrentStreams = count
        }
        if let seconds = try reader.integer("request_read_timeout_seconds", in: requestReadTimeoutSecondsRange) {
            configuration.requestReadTimeout = .seconds(seconds)
        }
        return configuration
    }
}

/// Typed reads from one JSON object, with errors that name the key's full path.
private struct ConfigReader {
    let members: [String: JSONValue]
    let path: String

    func rejectUnknown(_ known: Set<String>) throws(GatewayConfigurationError) {
        if let key = members.keys.sorted().first(where: { !known.contains($0) }) {
            throw GatewayConfigurationError("unknown key \"\(path)\(key)\"; expected \(known.sorted().joined(separator: ", "))")
        }
    }

    func string(_ key: String) throws(GatewayConfigurationError) -> String? {
        switch members[key] {
        case nil: return nil
        case .string(let text)?: return text
        case let other?: throw GatewayConfigurationError("\"\(path)\(key)\": expected a string, found \(other.typeName)")
        }
    }

    func requiredString(_ key: String) throws(GatewayConfigurationError) -> String {
        guard let text = try string(key), !text.isEmpty else { throw GatewayConfigurationError("\"\(path)\(key)\" is required") }
        return text
    }

    func integer(_ key: String, in range: ClosedRange<Int>) throws(GatewayConfigurationError) -> Int? {
        switch members[key] {
        case nil: return nil
        case .integer(let value)? where range.contains(Int(clamping: value)): return Int(value)
        case let other?:
            throw GatewayConfigurationError("\"\(path)\(key)\": expected an integer from \(range.lowerBound) to \(range.upperBound), found \(other)")
        }
    }

    func number(_ key: String) throws(GatewayConfigurationError) -> Double? {
        switch members[key] {
        case nil: return nil
        case .integer(let value)?: return Double(value)
        case .double(let value)?: return value
        case let other?: throw GatewayConfigurationError("\"\(path)\(key)\": expected a number, found \(other.typeName)")
        }
    }

    func rateLimit(_ key: String) throws(GatewayConfigurationError) -> GatewayRateLimit? {
        switch members[key] {
        case nil: return nil
        case .object(let limit)?:
            let reader = ConfigReader(members: limit, path: "\(path)\(key).")
            try reader.rejectUnknown(["burst", "per_second"])
            guard let burst = try reader.integer("burst", in: 1...1_000_000),
                  let perSecond = try reader.number("per_second"), perSecond > 0, perSecond <= 1_000_000 else {
                throw GatewayConfigurationError("\"\(path)\(key)\": expected {\"burst\": 1…1000000, \"per_second\": a number above 0}")
            }
            return GatewayRateLimit(burst: burst, perSecond: perSecond)
        case let other?: throw GatewayConfigurationError("\"\(path)\(key)\": expected an object, found \(other.typeName)")
        }
    }
}
