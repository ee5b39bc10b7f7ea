/// The key names of a policy file, defined once (docs/push-inspect.md). They are snake_case,
/// as every JSON document of the suite is (``JSONKeyConvention``); the keys of a scope's
/// `where`, which are payload paths, are the payload's own.
enum PolicyKey {
    static let name = "name"
    static let scope = "scope"
    static let description = "description"
    static let allowedKeys = "allowed_keys"
    static let requiredKeys = "required_keys"
    static let allowedValues = "allowed_values"
    static let leaks = "leaks"
    static let badge = "badge"
    static let identifiers = "identifiers"
    static let equalFields = "equal_fields"
    static let urlLinks = "url_links"
    static let headers = "headers"
    static let root: Set<String> = [
        name, scope, allowedKeys, requiredKeys, allowedValues, leaks, badge, identifiers, equalFields, urlLinks, headers,
        description,
    ]

    /// Keys of the entries of several sections.
    static let path = "path"
    static let paths = "paths"
    static let values = "values"
    static let patterns = "patterns"
    static let pattern = "pattern"
    static let required = "required"
    static let presence = "presence"
    static let maximum = "maximum"

    /// `url_links` entries.
    enum URLLink {
        static let scheme = "scheme"
        static let host = "host"
        static let pathTemplate = "path_template"
        static let idPattern = "id_pattern"
        static let idField = "id_field"
        static let all: Set<String> = [path, scheme, host, pathTemplate, idPattern, idField, required, scope]
    }

    /// A `scope` object.
    enum Scope {
        static let pushTypes = "push_types"
        static let topics = "topics"
        static let `where` = "where"
        static let all: Set<String> = [pushTypes, topics, `where`]
    }

    /// The `leaks` object.
    enum Leaks {
        static let detectors = "detectors"
        static let exempt = "exempt"
        static let freeTextWords = "free_text_words"
        static let freeTextLength = "free_text_length"
        static let secretHexLength = "secret_hex_length"
        static let secretBase64Length = "secret_base64_length"
        static let phoneDigits = "phone_digits"
        static let all: Set<String> = [
            detectors, exempt, freeTextWords, freeTextLength, secretHexLength, secretBase64Length, phoneDigits,
        ]
    }

    /// `headers` entries.
    enum Headers {
        static let pushTypes = Scope.pushTypes
        static let priorities = "priorities"
        static let requirePriority = "require_priority"
        static let topics = Scope.topics
        static let requireExpiration = "require_expiration"
        static let maximumExpirationDelay = "maximum_expiration_delay"
        static let requireCollapseID = "require_collapse_id"
        static let requireAPNsID = "require_apns_id"
        static let all: Set<String> = [
            pushTypes, priorities, requirePriority, topics, requireExpiration, maximumExpirationDelay, requireCollapseID,
            requireAPNsID, scope,
        ]
    }
}
