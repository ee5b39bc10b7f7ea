import StrictJSON

/// A request's header fields as the capture keeps them: in wire order, duplicates kept, and
/// never `authorization`.
///
/// The provider token is a credential valid for up to an hour, and capture files end up in
/// CI artifacts, so the one header that carries it is refused as it is added, whoever builds
/// the list. Lookups ignore ASCII case, as HTTP requires.
///
/// ```swift
/// var headers = CaptureHeaders()
/// headers.add(name: "apns-topic", value: "com.example.app")
/// headers["APNS-Topic"]  // "com.example.app"
/// ```
public struct CaptureHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// One header field.
    public struct Field: Sendable, Hashable {
        public var name: String
        public var value: String

        /// Creates a field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The fields, in wire order.
    public private(set) var fields: [Field] = []

    /// An empty list.
    public init() {}

    /// The fields of `pairs` in order, without `authorization`.
    public init(_ pairs: [(name: String, value: String)]) {
        fields.reserveCapacity(pairs.count)
        for (name, value) in pairs { add(name: name, value: value) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements.map { (name: $0.0, value: $0.1) })
    }

    public var count: Int { fields.count }
    public var isEmpty: Bool { fields.isEmpty }

    /// Reserves room for `capacity` fields.
    public mutating func reserveCapacity(_ capacity: Int) {
        fields.reserveCapacity(capacity)
    }

    /// Appends a field, unless it is `authorization`, which a capture never keeps.
    ///
    /// - Returns: whether the field was kept: false for `authorization`.
    @discardableResult
    public mutating func add(name: String, value: String) -> Bool {
        guard !Self.isCredential(name) else { return false }
        fields.append(Field(name: name, value: value))
        return true
    }

    /// The first value for `name`, or nil.
    public subscript(name: String) -> String? {
        for field in fields where Self.equalIgnoringASCIICase(field.name, name) { return field.value }
        return nil
    }

    /// Every value for `name`, in wire order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.equalIgnoringASCIICase($0.name, name) }.map(\.value)
    }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// Whether `name` is `authorization` in any case.
    @inline(__always)
    static func isCredential(_ name: String) -> Bool {
        name.utf8.count == credentialName.utf8.count && equalIgnoringASCIICase(name, credentialName)
    }

    private static let credentialName = "authorization"

    static func equalIgnoringASCIICase(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.count == rhs.utf8.count && lhs.withBorrowedUTF8 { left in rhs.withBorrowedUTF8 { equalIgnoringASCIICase(left, $0) } }
    }

    /// ASCII case-insensitive equality of two byte strings: letters fold, nothing else does.
    static func equalIgnoringASCIICase(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for (a, b) in zip(lhs, rhs) where a != b {
            let folded = a | 0x20
            guard folded == b | 0x20, folded >= UInt8(ascii: "a"), folded <= UInt8(ascii: "z") else { return false }
        }
        return true
    }
}
