import Foundation
import Synchronization

/// The built-in ``PushHandlerFactory``: answers every push as APNs would, by
/// ``PushValidator``'s rules against a registry that can be replaced while serving.
///
/// Each connection gets a ``ValidatingPushHandler`` holding the connection's
/// ``ConnectionAuthState``. Every push is checked by the validator current when it
/// arrives; a replaced registry reaches open connections at their next push.
/// `MockAPNsServer` keeps one, which its `replaceRegistry(_:)` and the control API change,
/// and hands it to the `handlerFactory` it is given, for a factory of your own to wrap.
public final class ValidatingPushHandlerFactory: PushHandlerFactory {
    private let current: Mutex<PushValidator>
    /// The provider-token clock, kept for validators built later; nil is the system clock.
    private let clock: (@Sendable () -> Date)?

    /// Creates the factory.
    ///
    /// - Parameters:
    ///   - registry: The apps, keys and devices answered from until replaced.
    ///   - settings: Choices where Apple is silent.
    ///   - now: The provider-token clock; nil for the system clock.
    ///   - channels: The broadcast channels broadcasts are checked against.
    public init(registry: MockRegistry, settings: PushValidator.Settings = .makeDefault(), now: (@Sendable () -> Date)? = nil,
                channels: ChannelStore = ChannelStore()) {
        current = Mutex(PushValidator(registry: registry, settings: settings, now: now, channels: channels))
        clock = now
    }

    /// The validator the next push is checked by.
    public var validator: PushValidator { current.withLock { $0 } }

    /// The apps, keys and devices pushes are checked against now.
    public var registry: MockRegistry { validator.registry }

    /// A handler for a new connection, starting from what its TLS handshake established.
    public func makeHandler(for connection: PushConnectionInfo) -> ValidatingPushHandler {
        ValidatingPushHandler(
            validators: self, auth: ConnectionAuthState(environment: connection.environment, certificate: connection.certificate))
    }

    /// Swaps in a validator for `registry`, keeping the settings and clock; pushes in flight
    /// finish with the old one.
    public func replaceRegistry(_ registry: MockRegistry) {
        updateRegistry { $0 = registry }
    }

    /// Changes part of the registry and swaps in a validator for the result, in one step:
    /// two changes of different parts made at once (`PUT /devices` and `PUT /keys`) each keep
    /// the other's; reading, changing and replacing in separate steps would lose one of them.
    ///
    /// - Returns: The registry as changed.
    @discardableResult
    public func updateRegistry(_ change: (inout MockRegistry) -> Void) -> MockRegistry {
        current.withLock { validator in
            var registry = validator.registry
            change(&registry)
            validator = PushValidator(registry: registry, settings: validator.settings, now: clock, channels: validator.channels)
            return registry
        }
    }
}
