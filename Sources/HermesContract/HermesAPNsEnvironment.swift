/// The `apns_env` field: which APNs host a push goes to.
///
/// A device token belongs to one environment (a debug build's token is a sandbox token),
/// so the plugin records it at registration and sends it with every push.
public enum HermesAPNsEnvironment: String, Sendable, Hashable, CaseIterable {
    /// `api.sandbox.push.apple.com`: development builds.
    case sandbox
    /// `api.push.apple.com`: App Store and TestFlight builds.
    case production
}
