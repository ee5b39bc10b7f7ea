/// Something odd about an accepted provider token: APNs accepts it, and so does the mock,
/// but a careful client would not send it.
public struct APNsTokenLintWarning: Sendable, Hashable, CustomStringConvertible {
    /// The kind of oddity. New kinds may be added.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        /// Tells kinds apart: a switch over kinds compares once per `case`, and comparing
        /// names would mean a string comparison each time (the mock converts a kind per push).
        private let code: UInt8
        private let name: String
        private init(_ code: UInt8, _ name: String) {
            self.code = code
            self.name = name
        }

        public static func == (lhs: Kind, rhs: Kind) -> Bool { lhs.code == rhs.code }
        public func hash(into hasher: inout Hasher) { hasher.combine(code) }

        /// `iat` was a numeric string such as `"1795958793"`.
        public static let issuedAtIsString = Kind(1, "issuedAtIsString")
        /// `iat` was a JSON number with a fraction or exponent, such as `1795958793.25`.
        public static let issuedAtIsFractional = Kind(2, "issuedAtIsFractional")
        /// `iat` was ahead of the mock's clock by no more than the allowed skew.
        public static let issuedAtInFuture = Kind(3, "issuedAtInFuture")
        /// The header carried `typ` (APNs needs only `alg` and `kid`).
        public static let typeHeaderPresent = Kind(4, "typeHeaderPresent")
        /// The header carried members other than `alg`, `kid` and `typ`.
        public static let unexpectedHeaderField = Kind(5, "unexpectedHeaderField")
        /// The claims carried members other than `iss` and `iat`.
        public static let unexpectedClaim = Kind(6, "unexpectedClaim")

        /// A one-line summary for logs; never contains key material.
        public var description: String { name }
    }

    /// What kind of oddity.
    public let kind: Kind
    /// A sentence describing it.
    public let message: String

    /// A one-line summary for logs; never contains key material.
    public var description: String { "\(kind): \(message)" }
}
