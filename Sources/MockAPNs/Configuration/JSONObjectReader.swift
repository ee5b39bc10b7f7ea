import StrictJSON

/// Reads one JSON object of a schema, turning every mismatch into a ``ConfigurationError``
/// that names the JSON path and what was expected.
///
/// Unknown fields are errors, so a typo such as `"probablity"` is reported instead of
/// silently ignored, and a field's camelCase spelling (`keyId`) is reported with its
/// snake_case name (``JSONKeyConvention``). `null` counts as absent, so a field can be
/// cleared explicitly.
struct JSONObjectReader {
    /// The path of the object itself; empty for the document root.
    let path: String
    private let members: [String: JSONValue]

    /// Checks that `value` is an object whose fields are all in `allowed`.
    init(_ value: JSONValue, path: String, allowed: [String]) throws(ConfigurationError) {
        guard case .object(let members) = value else {
            throw ConfigurationError(.invalidValue, path: path, "expected an object, \(JSONField.found(value))")
        }
        if let unknown = members.keys.filter({ !allowed.contains($0) }).sorted().first {
            throw JSONField.unknownField(unknown, path: path, allowed: allowed)
        }
        self.path = path
        self.members = members
    }

    /// The path of a field of this object.
    func path(_ key: String) -> String { JSONField.path(path, key) }

    /// Whether the field is present and not null.
    func has(_ key: String) -> Bool { value(key) != nil }

    /// The field's value; nil when absent or null.
    func value(_ key: String) -> JSONValue? {
        guard let member = members[key], member != .null else { return nil }
        return member
    }

    /// The field's value, which must be present.
    func required(_ key: String) throws(ConfigurationError) -> JSONValue {
        guard let member = value(key) else {
            throw ConfigurationError(.missingField, path: path(key), "required field is missing")
        }
        return member
    }

    func string(_ key: String) throws(ConfigurationError) -> String? {
        try value(key).map { (member) throws(ConfigurationError) in try JSONField.string(member, path: path(key)) }
    }

    func requiredString(_ key: String) throws(ConfigurationError) -> String {
        try JSONField.string(try required(key), path: path(key))
    }

    func bool(_ key: String) throws(ConfigurationError) -> Bool? {
        guard let member = value(key) else { return nil }
        guard case .bool(let flag) = member else {
            throw ConfigurationError(.invalidValue, path: path(key), "expected true or false, \(JSONField.found(member))")
        }
        return flag
    }

    func integer(_ key: String, in range: ClosedRange<Int64>) throws(ConfigurationError) -> Int64? {
        try value(key).map { (member) throws(ConfigurationError) in
            try JSONField.integer(member, path: path(key), in: range)
        }
    }

    func number(_ key: String, in range: ClosedRange<Double>) throws(ConfigurationError) -> Double? {
        try value(key).map { (member) throws(ConfigurationError) in
            try JSONField.number(member, path: path(key), in: range)
        }
    }

    func array(_ key: String) throws(ConfigurationError) -> [JSONValue]? {
        try value(key).map { (member) throws(ConfigurationError) in try JSONField.array(member, path: path(key)) }
    }

    func stringArray(_ key: String) throws(ConfigurationError) -> [String]? {
        guard let elements = try array(key) else { return nil }
        var strings: [String] = []
        for (index, element) in elements.enumerated() {
            strings.append(try JSONField.string(element, path: JSONField.path(path(key), index)))
        }
        return strings
    }
}

/// Checks single JSON values against the schema, with messages that say what was found.
enum JSONField {
    /// `parent.key`, or `key` at the root.
    static func path(_ parent: String, _ key: String) -> String {
        parent.isEmpty ? key : "\(parent).\(key)"
    }

    /// `parent[index]`.
    static func path(_ parent: String, _ index: Int) -> String {
        "\(parent)[\(index)]"
    }

    /// The error for a field `allowed` does not hold, in the object at `path`: the field's
    /// name now when it is the camelCase spelling of one (`it is now "key_id"`), else the
    /// names the object takes.
    static func unknownField(_ name: String, path: String, allowed: [String]) -> ConfigurationError {
        let message = if let renamed = JSONKeyConvention.renamed(name, among: allowed) {
            "unknown field; it is now \(JSONValue.string(renamed))"
        } else {
            "unknown field; expected one of \(allowed.joined(separator: ", "))"
        }
        return ConfigurationError(.unknownField, path: Self.path(path, name), message)
    }

    /// `found 700`, `found string "abc"`, `found an object`: enough to spot the mistake.
    static func found(_ value: JSONValue) -> String {
        switch value {
        case .array: return "found an array"
        case .object: return "found an object"
        case .string(let text):
            let shown = text.count > 60 ? String(text.prefix(60)) + "…" : text
            return "found string \(JSONValue.string(shown))"
        default: return "found \(value)"
        }
    }

    static func string(_ value: JSONValue, path: String) throws(ConfigurationError) -> String {
        guard case .string(let text) = value else {
            throw ConfigurationError(.invalidValue, path: path, "expected a string, \(found(value))")
        }
        return text
    }

    static func array(_ value: JSONValue, path: String) throws(ConfigurationError) -> [JSONValue] {
        guard case .array(let elements) = value else {
            throw ConfigurationError(.invalidValue, path: path, "expected an array, \(found(value))")
        }
        return elements
    }

    static func integer(_ value: JSONValue, path: String, in range: ClosedRange<Int64>) throws(ConfigurationError) -> Int64 {
        guard case .integer(let number) = value, range.contains(number) else {
            // Past a bound too large to be worth reading ("of at least 1"), name that bound: the
            // lower one alone would tell a person who wrote 9223372036854775807 nothing.
            if case .integer(let number) = value, number > range.upperBound, range.upperBound >= Int64(Int32.max) {
                throw ConfigurationError(.invalidValue, path: path, "expected an integer of at most \(range.upperBound), \(found(value))")
            }
            throw ConfigurationError(.invalidValue, path: path, "expected an integer \(describe(range)), \(found(value))")
        }
        return number
    }

    static func number(_ value: JSONValue, path: String, in range: ClosedRange<Double>) throws(ConfigurationError) -> Double {
        let number: Double
        switch value {
        case .integer(let integer): number = Double(integer)
        case .double(let double): number = double
        default: number = .nan
        }
        guard range.contains(number) else {
            throw ConfigurationError(.invalidValue, path: path, "expected a number \(describe(range)), \(found(value))")
        }
        return number
    }

    private static func describe(_ range: ClosedRange<Int64>) -> String {
        // Upper bounds this large only guard against overflow; they are not worth reading.
        if range.upperBound >= Int64(Int32.max) { return "of at least \(range.lowerBound)" }
        return "\(range.lowerBound)-\(range.upperBound)"
    }

    private static func describe(_ range: ClosedRange<Double>) -> String {
        func text(_ number: Double) -> String {
            number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        }
        if range.upperBound == .greatestFiniteMagnitude { return "of at least \(text(range.lowerBound))" }
        return "\(text(range.lowerBound))-\(text(range.upperBound))"
    }
}
