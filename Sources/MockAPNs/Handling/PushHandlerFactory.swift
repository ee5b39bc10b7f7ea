/// Makes the ``PushHandler`` of each connection to the mock's APNs listeners, as pushy's
/// `PushNotificationHandlerFactory` does.
///
/// The server calls ``makeHandler(for:)`` once per connection, when it opens (on the
/// connection's event loop), and keeps the handler for every push on that connection.
/// One factory serves every connection of both listeners, from several event loops at
/// once, hence `Sendable`. ``ValidatingPushHandlerFactory`` is the built-in one;
/// `MockAPNsServer`'s `handlerFactory` parameter hands it to you to wrap:
///
/// ```swift
/// struct OnlyListedDevicesFactory: PushHandlerFactory {
///     let validating: ValidatingPushHandlerFactory
///     let devices: Set<DeviceToken>
///
///     func makeHandler(for connection: PushConnectionInfo) -> OnlyListedDevices {
///         OnlyListedDevices(validating: validating.makeHandler(for: connection), devices: devices)
///     }
/// }
///
/// let mock = try MockAPNsServer.startForTesting(handlerFactory: { OnlyListedDevicesFactory(validating: $0, devices: [device]) })
/// ```
public protocol PushHandlerFactory: Sendable {
    /// The handler this factory makes.
    associatedtype Handler: PushHandler

    /// The handler for a connection that has just opened.
    ///
    /// - Parameter connection: What the listener knows about the connection: its id, the
    ///   environment it serves and the client certificate it authenticated with, if any.
    func makeHandler(for connection: PushConnectionInfo) -> Handler
}
