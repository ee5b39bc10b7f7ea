import APNsCore
import StrictJSON

extension Policy {
    /// Reads a policy file (the schema is in docs/push-inspect.md).
    ///
    /// Every key is checked: an unknown one is an error rather than a rule silently not
    /// applied, because a typo in a policy would otherwise pass everything.
    ///
    /// ```swift
    /// let policy = try Policy(json: Array(#"{"name":"app","allowed_keys":["aps","id"]}"#.utf8))
    /// ```
    /// - Throws: ``PolicyError`` naming the location and the problem.
    public init(json bytes: [UInt8]) throws(PolicyError) {
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            throw PolicyError("", "not JSON: \(error)")
        }
        let root = try PolicyReader(document, at: "")
        try root.only(PolicyKey.root)
        self.init(name: try root.optional(PolicyKey.name)?.policyName() ?? Self.defaultName, scope: try root.scopeMember())
        allowedKeys = try root.optional(PolicyKey.allowedKeys)?.paths()
        requiredKeys = try root.optional(PolicyKey.requiredKeys)?.each { (entry) throws(PolicyError) in
            if entry.value.stringValue != nil { return ScopedPath(try entry.path()) }
            try entry.only([PolicyKey.path, PolicyKey.scope])
            return ScopedPath(try entry.required(PolicyKey.path).path(), scope: try entry.scopeMember())
        } ?? []
        allowedValues = try root.optional(PolicyKey.allowedValues)?.each { (entry) throws(PolicyError) in
            try entry.only([PolicyKey.path, PolicyKey.values, PolicyKey.patterns, PolicyKey.scope])
            let values = try entry.optional(PolicyKey.values)?.array().map(\.value) ?? []
            let patterns = try entry.optional(PolicyKey.patterns)?.patterns() ?? []
            guard !values.isEmpty || !patterns.isEmpty else {
                throw PolicyError(entry.location, "give \"\(PolicyKey.values)\" or \"\(PolicyKey.patterns)\" (or both)")
            }
            return AllowedValue(path: try entry.required(PolicyKey.path).path(), values: Set(values), patterns: patterns,
                                scope: try entry.scopeMember())
        } ?? []
        leaks = try root.optional(PolicyKey.leaks)?.leakPolicy()
        badge = try root.optional(PolicyKey.badge)?.each { (entry) throws(PolicyError) in
            try entry.only([PolicyKey.presence, PolicyKey.maximum, PolicyKey.scope])
            let presenceText = try entry.optionalString(PolicyKey.presence) ?? "optional"
            guard let presence = BadgeRequirement.Presence(rawValue: presenceText) else {
                throw PolicyError(entry.location + "." + PolicyKey.presence, "must be required, optional or forbidden")
            }
            return BadgeRequirement(
                presence: presence, maximum: try entry.optionalCount(PolicyKey.maximum), scope: try entry.scopeMember())
        }
        identifiers = try root.optional(PolicyKey.identifiers)?.each { (entry) throws(PolicyError) in
            try entry.only([PolicyKey.path, PolicyKey.pattern, PolicyKey.required, PolicyKey.scope])
            return IdentifierField(
                path: try entry.required(PolicyKey.path).path(), matcher: .pattern(try entry.required(PolicyKey.pattern).pattern()),
                isRequired: try entry.optionalBool(PolicyKey.required) ?? true, scope: try entry.scopeMember())
        } ?? []
        equalFields = try root.optional(PolicyKey.equalFields)?.each { (entry) throws(PolicyError) in
            let pathsReader: PolicyReader
            var scope = RuleScope.all
            if case .array = entry.value {
                pathsReader = entry
            } else {
                try entry.only([PolicyKey.paths, PolicyKey.scope])
                pathsReader = try entry.required(PolicyKey.paths)
                scope = try entry.scopeMember()
            }
            let paths = try pathsReader.paths()
            guard paths.count >= 2 else { throw PolicyError(pathsReader.location, "list at least two paths") }
            return FieldEquality(paths, scope: scope)
        } ?? []
        urlLinks = try root.optional(PolicyKey.urlLinks)?.each { (entry) throws(PolicyError) in
            try entry.only(PolicyKey.URLLink.all)
            let template = try entry.optionalString(PolicyKey.URLLink.pathTemplate)
            if let template, !template.hasPrefix("/") {
                throw PolicyError(entry.location + "." + PolicyKey.URLLink.pathTemplate, "must start with /")
            }
            return URLDeepLink(
                path: try entry.required(PolicyKey.path).path(), scheme: try entry.required(PolicyKey.URLLink.scheme).string(),
                host: try entry.optionalString(PolicyKey.URLLink.host), pathTemplate: template,
                idPattern: try entry.optional(PolicyKey.URLLink.idPattern)?.pattern(),
                idField: try entry.optional(PolicyKey.URLLink.idField)?.path(),
                isRequired: try entry.optionalBool(PolicyKey.required) ?? false, scope: try entry.scopeMember())
        } ?? []
        headers = try root.optional(PolicyKey.headers)?.each { (entry) throws(PolicyError) in
            try entry.headerRequirement()
        } ?? []
    }

    /// The name of a policy file that gives none.
    public static let defaultName = "policy"

    /// The longest policy name.
    public static let maximumNameLength = 64

    /// Whether `name` can be a policy's name: 1 to ``maximumNameLength`` ASCII letters,
    /// digits, `-` or `_`, starting with a letter. The name is the prefix of rule ids that
    /// go unescaped into the text output, JSON and JUnit, so it holds nothing a terminal acts
    /// on and no `.` that would blur where the prefix ends.
    public static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= maximumNameLength, isLetter(first) else { return false }
        return bytes.allSatisfy { isLetter($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
            || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }
}

/// A JSON value in a policy file, with the location used in errors.
struct PolicyReader {
    let value: JSONValue
    let location: String

    init(_ value: JSONValue, at location: String) throws(PolicyError) {
        self.value = value
        self.location = location
    }

    private var members: [String: JSONValue] {
        if case .object(let members) = value { return members }
        return [:]
    }

    private func member(_ key: String) -> String { location.isEmpty ? key : "\(location).\(key)" }

    /// Checks that the value is an object holding only `keys`. A key's camelCase spelling
    /// (`allowedKeys`) is reported with its snake_case name.
    func only(_ keys: Set<String>) throws(PolicyError) {
        guard case .object(let members) = value else { throw PolicyError(location, "must be an object, found \(value.typeName)") }
        for key in members.keys.sorted() where !keys.contains(key) {
            if let renamed = JSONKeyConvention.renamed(key, among: keys.sorted()) {
                throw PolicyError(member(key), "unknown key; it is now \"\(renamed)\"")
            }
            throw PolicyError(member(key), "unknown key; expected one of \(keys.sorted().joined(separator: ", "))")
        }
    }

    func optional(_ key: String) throws(PolicyError) -> PolicyReader? {
        guard let child = members[key], child != .null else { return nil }
        return try PolicyReader(child, at: member(key))
    }

    func required(_ key: String) throws(PolicyError) -> PolicyReader {
        guard let child = try optional(key) else { throw PolicyError(member(key), "is required") }
        return child
    }

    func array() throws(PolicyError) -> [PolicyReader] {
        guard case .array(let elements) = value else { throw PolicyError(location, "must be an array, found \(value.typeName)") }
        var readers: [PolicyReader] = []
        for (index, element) in elements.enumerated() {
            readers.append(try PolicyReader(element, at: "\(location)[\(index)]"))
        }
        return readers
    }

    /// `body` applied to each element of an array.
    func each<T>(_ body: (PolicyReader) throws(PolicyError) -> T) throws(PolicyError) -> [T] {
        var results: [T] = []
        for element in try array() { results.append(try body(element)) }
        return results
    }

    func paths() throws(PolicyError) -> [JSONPath] {
        try each { (entry) throws(PolicyError) in try entry.path() }
    }

    func patterns() throws(PolicyError) -> [TextPattern] {
        try each { (entry) throws(PolicyError) in try entry.pattern() }
    }

    func string() throws(PolicyError) -> String {
        guard case .string(let text) = value else { throw PolicyError(location, "must be a string, found \(value.typeName)") }
        return text
    }

    func optionalString(_ key: String) throws(PolicyError) -> String? { try optional(key)?.string() }

    /// A policy's name (``Policy/isValidName(_:)``), which is not a built-in profile's: the
    /// rule ids of both would share one prefix, and their counts would merge.
    func policyName() throws(PolicyError) -> String {
        let name = try string()
        guard Policy.isValidName(name) else {
            throw PolicyError(location, "must be 1 to \(Policy.maximumNameLength) ASCII letters, digits, - or _, starting with a letter "
                + "(it prefixes the rule ids, as in myapp.allowed-keys); found \(JSONWriter.quoted(name, escaping: .terminalSafe))")
        }
        guard BuiltInProfile(rawValue: name) == nil else {
            throw PolicyError(location, "\"\(name)\" is the name of a built-in profile, whose rule ids would mix with this "
                + "policy's; choose another name")
        }
        return name
    }

    func optionalInteger(_ key: String) throws(PolicyError) -> Int64? {
        guard let child = try optional(key) else { return nil }
        guard case .integer(let number) = child.value else {
            throw PolicyError(child.location, "must be an integer, found \(child.value.typeName)")
        }
        return number
    }

    /// An integer ≥ 0: a negative maximum no badge or expiration can meet would fail every
    /// push it applies to, a mistake to report rather than findings by the thousand.
    func optionalCount(_ key: String) throws(PolicyError) -> Int64? {
        guard let number = try optionalInteger(key) else { return nil }
        guard number >= 0 else { throw PolicyError(member(key), "must be an integer ≥ 0, found \(number)") }
        return number
    }

    func optionalBool(_ key: String) throws(PolicyError) -> Bool? {
        guard let child = try optional(key) else { return nil }
        guard case .bool(let flag) = child.value else { throw PolicyError(child.location, "must be true or false") }
        return flag
    }

    func path() throws(PolicyError) -> JSONPath {
        let text = try string()
        guard let path = JSONPath(parsing: text) else {
            throw PolicyError(location, "not a path like aps.alert.title or header:apns-topic")
        }
        return path
    }

    func pattern() throws(PolicyError) -> TextPattern {
        do {
            return try TextPattern(try string())
        } catch let error as TextPattern.SyntaxError {
            throw PolicyError(location, error.description)
        } catch let error as PolicyError {
            throw error
        } catch {
            throw PolicyError(location, "\(error)")
        }
    }

    func stringSet() throws(PolicyError) -> Set<String> {
        var set: Set<String> = []
        for element in try array() { set.insert(try element.string()) }
        return set
    }

    /// A list of `apns-push-type` values, each one APNs defines: a misspelt type
    /// (`"alret"`) would match no push, so the policy it scopes would silently never apply.
    func pushTypeSet() throws(PolicyError) -> Set<String> {
        var set: Set<String> = []
        for element in try array() {
            let name = try element.string()
            guard APNsPushType(rawValue: name) != nil else {
                throw PolicyError(element.location, "unknown push type \"\(name)\"; expected one of "
                    + APNsPushType.allCases.map(\.rawValue).joined(separator: ", "))
            }
            set.insert(name)
        }
        return set
    }

    func scopeMember() throws(PolicyError) -> RuleScope {
        try optional(PolicyKey.scope)?.scope() ?? .all
    }

    func scope() throws(PolicyError) -> RuleScope {
        try only(PolicyKey.Scope.all)
        var fields: [RuleScope.FieldCondition] = []
        if let conditions = try optional(PolicyKey.Scope.where) {
            guard case .object(let members) = conditions.value else {
                throw PolicyError(conditions.location, "must be an object of path: value (or [values])")
            }
            for key in members.keys.sorted() {
                guard let path = JSONPath(parsing: key) else { throw PolicyError("\(conditions.location).\(key)", "not a path") }
                let values: Set<JSONValue> = switch members[key] {
                case .array(let options)?: Set(options)
                case let single?: [single]
                case nil: []
                }
                fields.append(RuleScope.FieldCondition(path: path, equalsAnyOf: values))
            }
        }
        return RuleScope(
            pushTypes: try optional(PolicyKey.Scope.pushTypes)?.pushTypeSet(), topics: try optional(PolicyKey.Scope.topics)?.stringSet(),
            where: fields)
    }

    func leakPolicy() throws(PolicyError) -> LeakPolicy {
        try only(PolicyKey.Leaks.all)
        var detectors = Set(LeakDetector.allCases)
        if let list = try optional(PolicyKey.Leaks.detectors) {
            detectors = []
            for entry in try list.array() {
                let name = try entry.string()
                guard let detector = LeakDetector(rawValue: name) else {
                    throw PolicyError(
                        entry.location, "unknown detector; expected one of \(LeakDetector.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                detectors.insert(detector)
            }
        }
        var thresholds = LeakThresholds.default
        func threshold(_ key: String, _ keyPath: WritableKeyPath<LeakThresholds, Int>) throws(PolicyError) {
            guard let number = try optionalInteger(key) else { return }
            guard number > 0, number < 1 << 30 else { throw PolicyError(member(key), "must be a positive integer") }
            thresholds[keyPath: keyPath] = Int(number)
        }
        try threshold(PolicyKey.Leaks.freeTextWords, \.freeTextWords)
        try threshold(PolicyKey.Leaks.freeTextLength, \.freeTextLength)
        try threshold(PolicyKey.Leaks.secretHexLength, \.secretHexLength)
        try threshold(PolicyKey.Leaks.secretBase64Length, \.secretBase64Length)
        try threshold(PolicyKey.Leaks.phoneDigits, \.phoneDigits)
        let exempt = try optional(PolicyKey.Leaks.exempt)?.paths() ?? []
        return LeakPolicy(scanner: LeakScanner(detectors: detectors, thresholds: thresholds), exempt: exempt)
    }

    func headerRequirement() throws(PolicyError) -> HeaderRequirement {
        try only(PolicyKey.Headers.all)
        var priorities: Set<Int>?
        if let list = try optional(PolicyKey.Headers.priorities) {
            var set: Set<Int> = []
            for entry in try list.array() {
                guard case .integer(let number) = entry.value, [1, 5, 10].contains(number) else {
                    throw PolicyError(entry.location, "must be 1, 5 or 10")
                }
                set.insert(Int(number))
            }
            priorities = set
        }
        return HeaderRequirement(
            pushTypes: try optional(PolicyKey.Headers.pushTypes)?.pushTypeSet(), priorities: priorities,
            requiresPriority: try optionalBool(PolicyKey.Headers.requirePriority) ?? false,
            topics: try optional(PolicyKey.Headers.topics)?.stringSet(),
            requiresExpiration: try optionalBool(PolicyKey.Headers.requireExpiration) ?? false,
            maximumExpirationDelay: try optionalCount(PolicyKey.Headers.maximumExpirationDelay),
            requiresCollapseID: try optionalBool(PolicyKey.Headers.requireCollapseID) ?? false,
            requiresAPNsID: try optionalBool(PolicyKey.Headers.requireAPNsID) ?? false, scope: try scopeMember())
    }
}
