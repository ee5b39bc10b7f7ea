/// Why a policy file was rejected: what is wrong, and where in the file (a JSON path).
public struct PolicyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Where, such as `allowed_values[2].patterns[0]`; empty for the whole document.
    public var location: String
    /// What is wrong.
    public var message: String

    /// An error at `location`.
    public init(_ location: String, _ message: String) {
        self.location = location
        self.message = message
    }

    public var description: String { location.isEmpty ? message : "\(location): \(message)" }
}
