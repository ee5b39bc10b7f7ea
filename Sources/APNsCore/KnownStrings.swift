/// A fixed set of short strings, such as the keys Apple documents inside `aps`, looked up
/// by length and then by comparison instead of by hashing.
///
/// ```swift
/// let levels: KnownStrings = ["passive", "active"]
/// levels.contains("active")  // true
/// ```
///
/// The payload lint looks up every `aps` and `alert` key of every push; hashing each key
/// would cost more than the rest of the lint. Strings of different UTF-8 lengths never
/// match, so unlike a `Set<String>` it tells apart canonically equivalent spellings (`é`
/// and `e` with a combining accent), as APNs, which compares keys byte by byte, does.
public struct KnownStrings: Sendable, ExpressibleByArrayLiteral {
    /// The strings, grouped by UTF-8 length: `byLength[n]` holds those of n bytes.
    @usableFromInline let byLength: [[String]]

    /// The set of `strings`.
    public init(arrayLiteral strings: String...) {
        var byLength: [[String]] = []
        for string in strings {
            let length = string.utf8.count
            while byLength.count <= length { byLength.append([]) }
            byLength[length].append(string)
        }
        self.byLength = byLength
    }

    /// Whether `string` is one of the set, byte for byte.
    @inlinable
    public func contains(_ string: String) -> Bool {
        let length = string.utf8.count
        guard length < byLength.count else { return false }
        for candidate in byLength[length] where candidate == string { return true }
        return false
    }
}
