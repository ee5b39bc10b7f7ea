import HTTPTransport

/// Why the mock could not start, with the setting to fix.
public struct MockServerError: Error, Sendable, CustomStringConvertible {
    /// What the mock was doing, such as `production listener on 127.0.0.1:2197`.
    public var context: String
    /// What went wrong.
    public var underlying: String

    public init(context: String, underlying: String) {
        self.context = context
        self.underlying = underlying
    }

    public var description: String { "\(context): \(underlying)" }
}
