import StrictJSON

/// A location in a push: a member of its JSON payload (`aps.thread-id`, `aps.alert.loc-args[0]`)
/// or one of its headers (`header:apns-priority`).
///
/// Paths are written with dots between object keys; a key that holds a dot, a bracket or a
/// space is written in brackets and quotes (`["a.b"]`). Policy files use the same spelling.
/// A key that holds a quote, a backslash or a control character (the sender's text) is
/// written as an escaped JSON string in brackets (`["a\u001bb"]`,
/// ``JSONStringEscaping/terminalSafe``), so that printing a path cannot act on a terminal.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// One step of a path.
    public enum Component: Sendable, Hashable {
        /// An object member.
        case key(String)
        /// An array element, from 0.
        case index(Int)
    }

    /// The steps from the payload's root; empty for the root itself.
    public var components: [Component]
    /// The header this path names instead, such as `apns-priority`.
    public var header: String?

    /// The payload root.
    public static let root = JSONPath(components: [])

    /// A path through the payload.
    public init(components: [Component]) {
        self.components = components
        self.header = nil
    }

    /// A path naming a request header.
    public static func header(_ name: String) -> JSONPath {
        var path = JSONPath(components: [])
        path.header = name
        return path
    }

    /// Parses a dotted path such as `aps.alert.title`, `header:apns-topic` or `a["x.y"][0]`;
    /// nil when it is not one.
    public init?(parsing text: String) {
        if text.hasPrefix(Self.headerPrefix) {
            let name = text.dropFirst(Self.headerPrefix.count)
            guard !name.isEmpty else { return nil }
            self = .header(String(name))
            return
        }
        var components: [Component] = []
        var bytes = Array(text.utf8)[...]
        var expectKey = true
        while !bytes.isEmpty {
            if bytes.first == UInt8(ascii: "[") {
                bytes = bytes.dropFirst()
                if bytes.first == UInt8(ascii: "\"") {
                    bytes = bytes.dropFirst()
                    guard let close = bytes.firstIndex(of: UInt8(ascii: "\"")),
                        bytes.index(after: close) < bytes.endIndex, bytes[bytes.index(after: close)] == UInt8(ascii: "]")
                    else { return nil }
                    components.append(.key(String(decoding: bytes[..<close], as: UTF8.self)))
                    bytes = bytes[(close + 2)...]
                } else {
                    guard let close = bytes.firstIndex(of: UInt8(ascii: "]")),
                        let index = Int(String(decoding: bytes[..<close], as: UTF8.self)), index >= 0
                    else { return nil }
                    components.append(.index(index))
                    bytes = bytes[(close + 1)...]
                }
                expectKey = false
                continue
            }
            if !expectKey {
                guard bytes.first == UInt8(ascii: ".") else { return nil }
                bytes = bytes.dropFirst()
            }
            let end = bytes.firstIndex { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "[") } ?? bytes.endIndex
            guard end > bytes.startIndex else { return nil }
            components.append(.key(String(decoding: bytes[..<end], as: UTF8.self)))
            bytes = bytes[end...]
            expectKey = false
        }
        guard !components.isEmpty else { return nil }
        self.init(components: components)
    }

    /// A path from a literal; an unparsable literal becomes a single key (programmer error
    /// shows up as a rule that never matches, not a crash).
    public init(stringLiteral value: String) {
        self = JSONPath(parsing: value) ?? JSONPath(components: [.key(value)])
    }

    private static let headerPrefix = "header:"

    /// The path with a key appended.
    public func appending(_ key: String) -> JSONPath {
        JSONPath(components: components + [.key(key)])
    }

    /// The path with an array index appended.
    public func appending(index: Int) -> JSONPath {
        JSONPath(components: components + [.index(index)])
    }

    /// The object keys of the path, or nil if it has an array index or names a header.
    public var keys: [String]? {
        guard header == nil else { return nil }
        var keys: [String] = []
        keys.reserveCapacity(components.count)
        for component in components {
            guard case .key(let key) = component else { return nil }
            keys.append(key)
        }
        return keys
    }

    public var description: String {
        if let header { return Self.headerPrefix + header }
        if components.isEmpty { return "$" }
        var text = ""
        for component in components {
            switch component {
            case .index(let index):
                text += "[\(index)]"
            case .key(let key):
                var quoted: [UInt8] = []
                JSONWriter.writeString(key, into: &quoted, escaping: .terminalSafe)
                // Escaped (longer than the key and its quotes), or holding a dot, bracket or space.
                if key.isEmpty || quoted.count != key.utf8.count + 2
                    || key.utf8.contains(where: { $0 == 0x2E || $0 == 0x5B || $0 == 0x5D || $0 == 0x20 }) {
                    text += "[" + String(decoding: quoted, as: UTF8.self) + "]"
                } else {
                    if !text.isEmpty { text += "." }
                    text += key
                }
            }
        }
        return text
    }
}

extension JSONValue {
    /// The value at a path of object keys, or nil when any step is missing or not an object.
    public func value(atKeys keys: some Collection<String>) -> JSONValue? {
        var current = self
        for key in keys {
            guard case .object(let members) = current, let next = members[key] else { return nil }
            current = next
        }
        return current
    }

    /// The value at a payload path, or nil when it is absent.
    public func value(at path: JSONPath) -> JSONValue? {
        guard path.header == nil else { return nil }
        var current = self
        for component in path.components {
            switch component {
            case .key(let key):
                guard case .object(let members) = current, let next = members[key] else { return nil }
                current = next
            case .index(let index):
                guard case .array(let elements) = current, index < elements.count else { return nil }
                current = elements[index]
            }
        }
        return current
    }
}
