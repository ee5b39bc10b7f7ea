/// A usage error: what the person typed cannot be run. CLIs exit with 2 on it.
public struct CommandLineError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
