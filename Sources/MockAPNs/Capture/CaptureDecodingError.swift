/// Why one line of a capture file is not a record this version can read.
public struct CaptureDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong, naming the field.
    public let message: String

    /// Creates an error with a message naming the field.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
