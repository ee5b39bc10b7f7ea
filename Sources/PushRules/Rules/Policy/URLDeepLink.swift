/// A URL deep link in the payload: its scheme, host and path shape, and the id inside it.
///
/// The path template has literal segments and at most one `{id}` segment; the id found
/// there must match `idPattern` and equal the string at `idField`.
///
/// ```swift
/// URLDeepLink(path: "link", scheme: "hermes", host: "session", pathTemplate: "/{id}", idField: "session_id")
/// // passes {"link":"hermes://session/sess-1","session_id":"sess-1"}
/// ```
public struct URLDeepLink: Sendable, Hashable {
    /// The field holding the URL.
    public var path: JSONPath
    /// The scheme the URL must have (compared without case).
    public var scheme: String
    /// The host; nil allows any (including none).
    public var host: String?
    /// `/a/{id}/b`; nil allows any path.
    public var pathTemplate: String?
    /// What the `{id}` segment must look like.
    public var idPattern: TextPattern?
    /// The field the `{id}` segment must equal.
    public var idField: JSONPath?
    /// Whether a push without the field fails.
    public var isRequired: Bool
    /// The pushes this applies to.
    public var scope: RuleScope

    /// A deep-link requirement; only `path` and `scheme` are required.
    public init(
        path: JSONPath, scheme: String, host: String? = nil, pathTemplate: String? = nil, idPattern: TextPattern? = nil,
        idField: JSONPath? = nil, isRequired: Bool = false, scope: RuleScope = .all
    ) {
        self.path = path
        self.scheme = scheme
        self.host = host
        self.pathTemplate = pathTemplate
        self.idPattern = idPattern
        self.idField = idField
        self.isRequired = isRequired
        self.scope = scope
    }

    /// Why `link` breaks the requirement for a payload whose `idField` holds `expectedID`; nil when it does not.
    func problem(with link: String, expectedID: String?) -> String? {
        guard let schemeEnd = link.firstRange(of: "://") else { return "not a URL (no ://)" }
        let scheme = String(link[..<schemeEnd.lowerBound]).lowercased()
        guard scheme == self.scheme.lowercased() else { return "the scheme must be \(self.scheme)" }
        let rest = link[schemeEnd.upperBound...]
        let pathStart = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let host = String(rest[..<pathStart]).lowercased()
        if let expectedHost = self.host, host != expectedHost.lowercased() {
            return "the host must be \(expectedHost)"
        }
        let afterHost = rest[pathStart...]
        let pathEnd = afterHost.firstIndex { $0 == "?" || $0 == "#" } ?? afterHost.endIndex
        let path = afterHost[..<pathEnd]
        guard let pathTemplate else { return nil }
        let templateSegments = pathTemplate.split(separator: "/", omittingEmptySubsequences: false)
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard templateSegments.count == segments.count else { return "the path must have the form \(pathTemplate)" }
        for (expected, actual) in zip(templateSegments, segments) {
            if expected == "{id}" {
                let id = String(actual).removingPercentEncoding
                guard !id.isEmpty else { return "the id in the URL is empty" }
                if let idPattern, !idPattern.matches(id) { return "the id in the URL does not match \(idPattern.source)" }
                if idField != nil, id != expectedID { return "the id in the URL must equal \(idField?.description ?? "")" }
            } else if expected != actual {
                return "the path must have the form \(pathTemplate)"
            }
        }
        return nil
    }
}

extension String {
    /// The text with `%XX` escapes decoded; malformed escapes are kept as written.
    fileprivate var removingPercentEncoding: String {
        guard utf8.contains(UInt8(ascii: "%")) else { return self }
        var output: [UInt8] = []
        let bytes = Array(utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let value = UInt8(String(decoding: bytes[(index + 1)...(index + 2)], as: UTF8.self), radix: 16)
            {
                output.append(value)
                index += 3
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}

/// URL deep links have the scheme, host and path their requirement sets, with the right id.
struct URLDeepLinkRule: PushRule {
    let id: String
    let scope: RuleScope
    let links: [URLDeepLink]

    func check(_ push: PushInput, into findings: inout [Finding]) {
        for link in links where link.scope.contains(push) {
            guard let value = push.payload?.value(at: link.path) else {
                if link.isRequired { findings.append(Finding(rule: id, path: link.path, message: "the deep link is missing")) }
                continue
            }
            guard case .string(let text) = value else {
                findings.append(Finding(rule: id, path: link.path, message: "a deep link must be a string, found \(value.typeName)"))
                continue
            }
            let expected = link.idField.flatMap { push.payload?.value(at: $0)?.stringValue }
            if let problem = link.problem(with: text, expectedID: expected) {
                findings.append(Finding(rule: id, path: link.path, message: problem, value: value.description))
            }
        }
    }
}
