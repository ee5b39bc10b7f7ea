/// Where the app navigates.
public enum HermesRoute: Sendable, Hashable {
    /// The chat of one session.
    case session(String)
}
