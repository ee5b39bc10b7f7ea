/// Header fields in wire order, duplicates included.
///
/// Lookups ignore ASCII case, as HTTP requires. HTTP/2 names arrive lowercased already.
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// One header field.
    public struct Field: Sendable, Hashable {
        public var name: String
        public var value: String
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public private(set) var fields: [Field]

    public init(_ fields: [(String, String)] = []) {
        self.fields = fields.map { Field(name: $0.0, value: $0.1) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = []
        fields.reserveCapacity(elements.count)
        for (name, value) in elements { fields.append(Field(name: name, value: value)) }
    }

    public var count: Int { fields.count }

    /// Reserves room for `capacity` fields, to avoid regrowth while parsing.
    public mutating func reserveCapacity(_ capacity: Int) {
        fields.reserveCapacity(capacity)
    }
    public var isEmpty: Bool { fields.isEmpty }

    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field named `name` with one field holding `value`.
    public mutating func replaceOrAdd(name: String, value: String) {
        remove(name: name)
        add(name: name, value: value)
    }

    public mutating func remove(name: String) {
        fields.removeAll { $0.name.equalsIgnoringASCIICase(name) }
    }

    /// The first value for `name`, or nil.
    public subscript(name: String) -> String? {
        for field in fields where field.name.equalsIgnoringASCIICase(name) { return field.value }
        return nil
    }

    /// Every value for `name`, in wire order.
    public func values(for name: String) -> [String] {
        fields.filter { $0.name.equalsIgnoringASCIICase(name) }.map(\.value)
    }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }
}

extension String {
    /// ASCII case-insensitive equality, as HTTP field names need; no allocation.
    ///
    /// ```swift
    /// "Authorization".equalsIgnoringASCIICase("authorization")  // true
    /// ```
    public func equalsIgnoringASCIICase(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        let fast = utf8.withContiguousStorageIfAvailable { lhs in
            other.utf8.withContiguousStorageIfAvailable { rhs in lhs.equalsIgnoringASCIICase(rhs) }
        }
        if let fast, let result = fast { return result }
        return Array(utf8).equalsIgnoringASCIICase(Array(other.utf8))
    }
}

extension Collection<UInt8> {
    /// ASCII case-insensitive equality of two byte strings (letters fold, nothing else does),
    /// for names and ids read in place; no allocation.
    ///
    /// ```swift
    /// Array("Apns-ID".utf8).equalsIgnoringASCIICase("apns-id".utf8)  // true
    /// ```
    @inlinable
    public func equalsIgnoringASCIICase(_ other: some Collection<UInt8>) -> Bool {
        guard count == other.count else { return false }
        for (a, b) in zip(self, other) where a != b {
            let folded = a | 0x20
            guard folded == b | 0x20, folded >= UInt8(ascii: "a"), folded <= UInt8(ascii: "z") else { return false }
        }
        return true
    }
}
