import StrictJSON

/// Why one line of a capture file is not a record this version can read.
public struct CaptureDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Whether the line is damaged or written by another version of the format.
    /// New kinds may be added, so match with `==`, not exhaustively.
    public struct Kind: RawRepresentable, Sendable, Hashable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Not a record: not JSON, or a field missing or of the wrong type.
        public static let malformed = Kind(rawValue: "malformed")
        /// A record whose `"v"` is not the version this reader knows: readers skip it
        /// (a new version may change what a field means), but it is not damage.
        public static let unsupportedVersion = Kind(rawValue: "unsupported-version")
        /// A version-2 record whose `"kind"` is not `push`: a kind of record (a channel
        /// operation, a delivery event) this reader does not know. Skipped, not damage.
        public static let unsupportedKind = Kind(rawValue: "unsupported-kind")
        /// A version-2 record of a kind this package writes besides pushes (a delivery
        /// event): not a push, and readers of pushes skip it without a warning.
        public static let otherKind = Kind(rawValue: "other-kind")
    }

    /// Which kind of problem this is.
    public let kind: Kind
    /// What was wrong, naming the field.
    public let message: String

    /// Creates an error with a message naming the field.
    public init(_ message: String, kind: Kind = .malformed) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    /// `text` from the line as a JSON string with terminal-safe escapes, for a message: the
    /// line's text is the sender's (or damage), and printed raw it could forge a line of
    /// output or act on the terminal that shows the message.
    static func quoted(_ text: String) -> String {
        JSONWriter.quoted(text, escaping: .terminalSafe)
    }
}
