import HermesContract

/// What the app did with one received push.
public struct HermesNotificationOutcome: Sendable, Hashable {
    /// The push, typed.
    public var notification: HermesNotification
    /// How it was presented.
    public var presentation: HermesPresentation
    /// Where a tap on it leads.
    public var tapRoute: HermesRoute
    /// The pending-approval badge after it.
    public var badge: Int
}

/// How a received push reaches the user.
public enum HermesPresentation: Sendable, Hashable {
    /// The app is in the foreground and shows a banner.
    case banner
    /// The app is in the foreground on this very session: no banner, the user sees it.
    case suppressedViewingSession
    /// The app is in the background: the OS shows it in Notification Center.
    case system

    /// Whether the user gets an alert for it.
    public var isShown: Bool { self != .suppressedViewingSession }
}
