/// The environments in which an APNs signing key may be used, as chosen in the developer
/// account when the key was created.
public enum APNsKeyEnvironmentScope: String, Sendable, Hashable, CaseIterable {
    /// Production only; a sandbox connection answers `BadEnvironmentKeyIdInToken`.
    case production
    /// Sandbox only; a production connection answers `BadEnvironmentKeyIdInToken`.
    case sandbox
    /// Both environments (the default for keys made before scoped keys existed).
    case both

    /// Whether a key with this scope may authenticate on a connection to `environment`.
    public func allows(_ environment: APNsEnvironment) -> Bool {
        switch (self, environment) {
        case (.both, _), (.production, .production), (.sandbox, .sandbox): true
        default: false
        }
    }
}
