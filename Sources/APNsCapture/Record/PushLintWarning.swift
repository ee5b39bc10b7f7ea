/// Something APNs would accept silently that a developer still wants to know about,
/// such as an unknown key inside `aps` or `badge` sent as a string.
public struct PushLintWarning: Sendable, Hashable, CustomStringConvertible {
    /// A stable identifier for scripts, such as `aps.unknown-key` or `token.iat-string`.
    public var code: String
    /// A sentence a person can act on.
    public var message: String
    /// The JSON path the warning is about, such as `aps.badge`, if any.
    public var path: String?

    public init(code: String, message: String, path: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
    }

    public var description: String { path.map { "\(code) at \($0): \(message)" } ?? "\(code): \(message)" }
}
