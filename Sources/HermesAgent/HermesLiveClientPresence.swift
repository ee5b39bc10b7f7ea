import Synchronization

/// Whether a live client (the app's chat, a web UI) is showing a session right now; the
/// policy drops pushes for a session the user is looking at.
public protocol HermesLiveClientPresence: Sendable {
    func isViewing(sessionID: String) -> Bool
}

/// A presence the agent updates as clients open and close sessions.
public final class HermesViewedSessions: HermesLiveClientPresence {
    private let sessions = Mutex<[String: Int]>([:])

    /// No client is viewing anything yet.
    public init() {}

    /// A client opened `sessionID` (several clients may show the same session).
    public func clientOpened(sessionID: String) {
        sessions.withLock { $0[sessionID, default: 0] += 1 }
    }

    /// A client closed `sessionID`.
    public func clientClosed(sessionID: String) {
        sessions.withLock { sessions in
            guard let count = sessions[sessionID] else { return }
            sessions[sessionID] = count > 1 ? count - 1 : nil
        }
    }

    public func isViewing(sessionID: String) -> Bool {
        sessions.withLock { $0[sessionID] != nil }
    }
}
