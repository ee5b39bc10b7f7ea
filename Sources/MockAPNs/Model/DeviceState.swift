import Foundation

/// Whether a registered device token can receive pushes.
public enum DeviceState: Sendable, Hashable {
    /// Pushes are accepted.
    case active
    /// The app was removed or notifications turned off: 410 `Unregistered` with this time.
    case unregistered(since: Date)
    /// The token is no longer valid: 410 `ExpiredToken`.
    case expired
}
