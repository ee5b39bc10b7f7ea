import Foundation

/// The gateway's secrets, read only from the environment (never argv or a config file,
/// which show up in `ps`, shell history and repositories).
///
/// Each comes from `NAME` or from the file `NAME_FILE` names (Docker and systemd secrets);
/// one trailing newline of a file is dropped. `description` never shows them.
public struct GatewaySecrets: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The shared secret of `hmac` mode.
    public var hmacSecret: [UInt8]?
    /// The gateway-only key capabilities are derived from.
    public var capabilityKey: [UInt8]?
    /// The `.p8` provider key's PEM text, for a ``GatewayProviderKey`` without a path.
    public var providerKey: [UInt8]?

    public static let hmacSecretVariable = "PUSH_GATEWAY_HMAC_SECRET"
    public static let capabilityKeyVariable = "PUSH_GATEWAY_CAPABILITY_KEY"
    public static let providerKeyVariable = "PUSH_GATEWAY_AUTH_KEY_P8"
    /// The shortest capability key accepted: it is the only thing between a guessed
    /// capability and a push.
    public static let minimumCapabilityKeyLength = 16

    public init(hmacSecret: [UInt8]? = nil, capabilityKey: [UInt8]? = nil, providerKey: [UInt8]? = nil) {
        self.hmacSecret = hmacSecret
        self.capabilityKey = capabilityKey
        self.providerKey = providerKey
    }

    /// Reads the secrets from `environment` (by default the process's).
    ///
    /// - Throws: ``GatewayConfigurationError`` when both `NAME` and `NAME_FILE` are set,
    ///   the file cannot be read, a secret is empty, or the capability key is too short.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(GatewayConfigurationError) -> GatewaySecrets {
        let secrets = GatewaySecrets(
            hmacSecret: try read(hmacSecretVariable, from: environment),
            capabilityKey: try read(capabilityKeyVariable, from: environment),
            providerKey: try read(providerKeyVariable, from: environment))
        if let key = secrets.capabilityKey, key.count < minimumCapabilityKeyLength {
            throw GatewayConfigurationError("\(capabilityKeyVariable): use at least \(minimumCapabilityKeyLength) bytes (e.g. `openssl rand -hex 32`)")
        }
        return secrets
    }

    private static func read(_ name: String, from environment: [String: String]) throws(GatewayConfigurationError) -> [UInt8]? {
        let direct = environment[name], filePath = environment[name + "_FILE"]
        if direct != nil, filePath != nil {
            throw GatewayConfigurationError("set \(name) or \(name)_FILE, not both")
        }
        var bytes: [UInt8]
        if let direct {
            bytes = Array(direct.utf8)
        } else if let filePath {
            guard let data = FileManager.default.contents(atPath: filePath) else {
                throw GatewayConfigurationError("\(name)_FILE: cannot read \(filePath)")
            }
            bytes = Array(data)
            if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
            if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        } else {
            return nil
        }
        guard !bytes.isEmpty else { throw GatewayConfigurationError("\(name) is set but empty") }
        return bytes
    }

    public var description: String {
        "GatewaySecrets(hmac: \(hmacSecret == nil ? "unset" : "set"), capability key: \(capabilityKey == nil ? "unset" : "set"), "
            + "provider key: \(providerKey == nil ? "unset" : "set"))"
    }

    /// No children, so `dump` and debuggers cannot print the secrets either.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
