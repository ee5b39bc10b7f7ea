/// The query of a control-API URL, `a=1&b=two%20words`, decoded.
public struct QueryParameters: Sendable, Hashable {
    private var pairs: [(String, String)] = []
    /// The first part of the query that did not decode: a `%` not followed by two hex
    /// digits, or bytes that are not UTF-8. Decoded anyway (the `%` kept, bad bytes as
    /// U+FFFD), so a caller that must not guess refuses the query naming it.
    public private(set) var undecodablePart: String?

    /// Splits `path?query` and decodes the query; the path is returned separately.
    public static func split(_ target: String) -> (path: String, query: QueryParameters) {
        guard let mark = target.firstIndex(of: "?") else { return (target, QueryParameters()) }
        return (String(target[..<mark]), QueryParameters(String(target[target.index(after: mark)...])))
    }

    public init() {}

    /// Decodes `a=1&b=2`; `+` is a space and `%XX` a byte, as forms encode them.
    public init(_ query: String) {
        for part in query.split(separator: "&", omittingEmptySubsequences: true) {
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.decode(pieces[0])
            let value = pieces.count > 1 ? Self.decode(pieces[1]) : (text: "", isExact: true)
            if undecodablePart == nil, !name.isExact || !value.isExact { undecodablePart = String(part) }
            pairs.append((name.text, value.text))
        }
    }

    /// The first name given more than once, whose values would otherwise be silently
    /// dropped but for the last.
    public var repeatedName: String? {
        var seen: Set<String> = []
        return pairs.first { !seen.insert($0.0).inserted }?.0
    }

    /// The last value given for `name`.
    public subscript(name: String) -> String? {
        pairs.last { $0.0 == name }?.1
    }

    /// Every name given, in order.
    public var names: [String] { pairs.map(\.0) }

    public static func == (lhs: QueryParameters, rhs: QueryParameters) -> Bool {
        lhs.pairs.elementsEqual(rhs.pairs) { $0 == $1 }
    }

    public func hash(into hasher: inout Hasher) {
        for (name, value) in pairs {
            hasher.combine(name)
            hasher.combine(value)
        }
    }

    /// The text, and whether it decoded exactly (no stray `%`, valid UTF-8).
    private static func decode(_ text: Substring) -> (text: String, isExact: Bool) {
        let input = Array(text.utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(input.count)
        var isExact = true
        var index = 0
        while index < input.count {
            let byte = input[index]
            if byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), index + 2 < input.count,
                      let high = hexValue(input[index + 1]), let low = hexValue(input[index + 2]) {
                bytes.append(high << 4 | low)
                index += 2
            } else {
                if byte == UInt8(ascii: "%") { isExact = false }
                bytes.append(byte)  // A stray '%' stays as it is.
            }
            index += 1
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            return (String(decoding: bytes, as: UTF8.self), false)
        }
        return (decoded, isExact)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
