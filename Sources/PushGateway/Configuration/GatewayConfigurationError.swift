/// A configuration the gateway cannot start with: a bad flag value, config file, secret
/// or key. The message names the setting and what would fix it.
public struct GatewayConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
