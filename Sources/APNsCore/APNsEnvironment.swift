/// The APNs environment a connection serves.
public enum APNsEnvironment: String, Sendable, Hashable, CaseIterable {
    /// `api.push.apple.com`.
    case production
    /// `api.sandbox.push.apple.com` (also called development).
    case sandbox
}
