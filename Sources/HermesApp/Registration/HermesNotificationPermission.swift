/// The OS side of notifications, behind a protocol: on iOS an adapter over
/// `UNUserNotificationCenter` and `UIApplication.registerForRemoteNotifications()`; in
/// tests a fake that records whether the prompt was shown.
public protocol HermesNotificationPermission: Sendable {
    /// The current authorization, without prompting.
    func authorizationStatus() async -> HermesNotificationAuthorization

    /// Shows the OS permission prompt; true when the user allowed notifications.
    func requestAuthorization() async -> Bool

    /// Asks the OS for an APNs device token; it arrives later through
    /// ``HermesRegistrationLifecycle/deviceTokenDidChange(_:)``.
    func registerForRemoteNotifications() async
}

/// The OS's notification authorization.
public enum HermesNotificationAuthorization: Sendable, Hashable {
    /// The user was never asked.
    case notDetermined
    /// Notifications are allowed.
    case authorized
    /// The user said no; only the Settings app can change that.
    case denied
}
