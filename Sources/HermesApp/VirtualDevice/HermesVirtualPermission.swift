/// The OS side of notifications on a virtual device: the user answers the permission
/// prompt as told, and every request the app makes of the OS is recorded in order.
public actor HermesVirtualPermission: HermesNotificationPermission {
    private let userAllows: Bool
    private var status = HermesNotificationAuthorization.notDetermined
    /// What the app asked the OS, in order: ``Request/prompt`` and
    /// ``Request/registerForRemoteNotifications``.
    public private(set) var requests: [Request] = []

    /// One request of the app to the OS.
    public enum Request: Sendable, Hashable {
        /// The permission prompt was shown; `allowed` is the user's answer.
        case prompt(allowed: Bool)
        /// The app asked for an APNs device token.
        case registerForRemoteNotifications
    }

    /// A device whose user was never asked, and answers the prompt with `userAllows`.
    public init(userAllows: Bool = true) {
        self.userAllows = userAllows
    }

    public func authorizationStatus() -> HermesNotificationAuthorization { status }

    public func requestAuthorization() -> Bool {
        requests.append(.prompt(allowed: userAllows))
        status = userAllows ? .authorized : .denied
        return userAllows
    }

    public func registerForRemoteNotifications() {
        requests.append(.registerForRemoteNotifications)
    }
}
