/// The gateway could not start: `context` says what it was doing, `underlying` why.
public struct PushGatewayError: Error, Sendable, Hashable, CustomStringConvertible {
    public var context: String
    public var underlying: String
    public init(context: String, underlying: String) {
        self.context = context
        self.underlying = underlying
    }
    public var description: String { "\(context): \(underlying)" }
}
