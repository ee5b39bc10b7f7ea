/// A line of a capture file that was skipped, and why. Reading goes on after it.
public struct CaptureReadWarning: Sendable, Hashable, CustomStringConvertible {
    /// Why a line was skipped. New kinds may be added, so match with `==`, not exhaustively.
    public struct Kind: RawRepresentable, Sendable, Hashable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The file ends without a newline: a write was cut short, normally by a crash.
        public static let truncatedLastLine = Kind(rawValue: "truncated-last-line")
        /// A complete line that is not a record.
        public static let malformedLine = Kind(rawValue: "malformed-line")
        /// The start of a record cut short, directly followed by a record with `seq` 1: the
        /// partial last line a crash left, which a restarted mock ended with a newline before
        /// appending its own first record.
        public static let truncatedBeforeRestart = Kind(rawValue: "truncated-before-restart")
        /// A line longer than the reader's limit.
        public static let lineTooLong = Kind(rawValue: "line-too-long")
        /// A record of another format version (its `"v"` is neither 1 nor 2): skipped, because
        /// a new version may change what a field means.
        public static let unsupportedVersion = Kind(rawValue: "unsupported-version")
        /// A version-2 record of a kind other than `push` (one this reader does not know):
        /// skipped, as the format says of kinds added later.
        public static let unsupportedKind = Kind(rawValue: "unsupported-kind")
    }

    public var kind: Kind
    /// The 1-based line number.
    public var lineNumber: Int
    /// Where the line starts in the file.
    public var byteOffset: UInt64
    /// What was wrong, for people.
    public var message: String

    /// Creates a warning.
    public init(kind: Kind, lineNumber: Int, byteOffset: UInt64, message: String) {
        self.kind = kind
        self.lineNumber = lineNumber
        self.byteOffset = byteOffset
        self.message = message
    }

    public var description: String { "line \(lineNumber) (byte \(byteOffset)): \(kind.rawValue): \(message)" }
}
