import HermesContract

/// The app's handling of received pushes (contract §4), without UIKit: parse the payload,
/// decide whether to show a banner, keep the pending-approval badge, route taps.
///
/// On iOS, `userNotificationCenter(_:willPresent:)` calls ``receive(payload:)`` and shows
/// a banner only for ``HermesPresentation/banner``; `didReceive` calls ``tap(payload:)``.
///
/// ```swift
/// let handler = HermesNotificationHandler()
/// await handler.setForeground(true)
/// await handler.setViewing(sessionID: "sess-1")
/// let outcome = await handler.receive(payload: bytes)   // .suppressedViewingSession for sess-1
/// ```
public actor HermesNotificationHandler {
    /// Whether the app is in the foreground.
    public private(set) var isForeground = false
    /// The session on screen, if any.
    public private(set) var viewingSessionID: String?
    /// Sessions with an approval the user has not answered.
    public private(set) var pendingApprovals: Set<String> = []

    /// In the background, on no session, with no pending approval.
    public init() {}

    /// The app's badge: how many sessions wait for an approval.
    public var badge: Int { pendingApprovals.count }

    /// The app moved to the foreground or background.
    public func setForeground(_ foreground: Bool) {
        isForeground = foreground
    }

    /// The user opened a session's chat, or left it (nil).
    public func setViewing(sessionID: String?) {
        viewingSessionID = sessionID
    }

    /// Handles a received push.
    ///
    /// - Returns: What was done, or nil for a payload that is not a Hermes push (the app
    ///   ignores it).
    public func receive(payload: [UInt8]) -> HermesNotificationOutcome? {
        guard let notification = HermesNotification(payload: payload) else { return nil }
        if notification.type == .approval {
            pendingApprovals.insert(notification.sessionID)
        }
        let presentation: HermesPresentation
        if !isForeground {
            presentation = .system
        } else if viewingSessionID == notification.sessionID {
            presentation = .suppressedViewingSession
        } else {
            presentation = .banner
        }
        return HermesNotificationOutcome(notification: notification, presentation: presentation,
                                         tapRoute: .session(notification.sessionID), badge: badge)
    }

    /// The user tapped a push: the app opens its session.
    ///
    /// - Returns: The route, or nil for a payload that is not a Hermes push.
    public func tap(payload: [UInt8]) -> HermesRoute? {
        guard let notification = HermesNotification(payload: payload) else { return nil }
        isForeground = true
        viewingSessionID = notification.sessionID
        return .session(notification.sessionID)
    }

    /// The user answered (approved or denied) the approval of `sessionID`.
    ///
    /// - Returns: The badge after it.
    @discardableResult
    public func approvalAnswered(sessionID: String) -> Int {
        pendingApprovals.remove(sessionID)
        return badge
    }
}
