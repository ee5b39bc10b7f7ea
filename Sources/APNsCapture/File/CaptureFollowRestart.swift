/// Why a ``CaptureFileFollower`` started reading its file again from the beginning, as
/// `tail -F` does: what it had read was no longer the file at its path.
public struct CaptureFollowRestart: Sendable, Hashable, CustomStringConvertible {
    /// What happened to the file. New kinds may be added, so match with `==`.
    public struct Kind: RawRepresentable, Sendable, Hashable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The file became shorter than what had been read (`: > pushes.jsonl` between test
        /// runs, logrotate's `copytruncate`): it is read again from its start.
        public static let truncated = Kind(rawValue: "file-truncated")
        /// The path names another file than the one being read (rotated: moved away and
        /// created anew): the old one was read to its end, the new one is read from its start.
        public static let replaced = Kind(rawValue: "file-replaced")
    }

    public var kind: Kind
    /// What happened and what the follower did, for people.
    public var message: String

    /// Creates a restart notice.
    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "\(kind.rawValue): \(message)" }
}
