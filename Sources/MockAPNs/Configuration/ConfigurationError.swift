/// Why a configuration file, or a JSON document sent to the control API, was rejected.
///
/// The message names the file (when there is one), the JSON path of the offending value
/// and what was expected there:
///
/// ```text
/// apns-mock.json: faults[2].action.status: expected an integer 400-599, found 700
/// ```
///
/// Compare errors by ``code``; ``message`` is for people.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure. New codes may be added, so switch statements need a default.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case unreadableFile
            case invalidJSON
            case invalidValue
            case missingField
            case unknownField
            case invalidKey
            case duplicateID
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The configuration file could not be read.
        public static let unreadableFile = Code(.unreadableFile)
        /// The text is not valid JSON.
        public static let invalidJSON = Code(.invalidJSON)
        /// A value has the wrong type or is out of range.
        public static let invalidValue = Code(.invalidValue)
        /// A required field is absent.
        public static let missingField = Code(.missingField)
        /// An object has a field the schema does not define (usually a typo).
        public static let unknownField = Code(.unknownField)
        /// A key file could not be read or is not a P-256 key.
        public static let invalidKey = Code(.invalidKey)
        /// Two entries share an id, key ID, device token or bundle ID.
        public static let duplicateID = Code(.duplicateID)

        /// The code's name, such as `invalidValue`.
        public var description: String { base.rawValue }
    }

    /// What went wrong.
    public let code: Code
    /// The configuration file, if the document came from one.
    public let file: String?
    /// The JSON path of the offending value, such as `faults[2].action.status`; empty for
    /// the document as a whole.
    public let path: String
    /// What was expected, and what was found.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, path: String, _ message: String, file: String? = nil) {
        self.code = code
        self.path = path
        self.message = message
        self.file = file
    }

    /// The same error, attributed to `file`.
    func inFile(_ file: String) -> ConfigurationError {
        ConfigurationError(code, path: path, message, file: file)
    }

    /// Errors are equal when their codes and paths are; messages are for people.
    public static func == (lhs: ConfigurationError, rhs: ConfigurationError) -> Bool {
        lhs.code == rhs.code && lhs.path == rhs.path
    }

    /// `file: path: message`, leaving out the parts that are empty.
    public var description: String {
        var parts: [String] = []
        if let file { parts.append(file) }
        if !path.isEmpty { parts.append(path) }
        parts.append(message)
        return parts.joined(separator: ": ")
    }
}
