/// A set of byte values, as a 256-bit mask: membership is one shift and one AND.
struct ByteSet: Sendable, Hashable {
    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    init() {}

    init(_ bytes: some Sequence<UInt8>) {
        for byte in bytes { insert(byte) }
    }

    init(ascii text: String) {
        self.init(text.utf8)
    }

    static func range(_ lower: UInt8, _ upper: UInt8) -> ByteSet {
        var set = ByteSet()
        if lower <= upper { for byte in lower...upper { set.insert(byte) } }
        return set
    }

    static let all: ByteSet = .range(0, 255)
    static let digits: ByteSet = .range(0x30, 0x39)
    static let lowercase: ByteSet = .range(0x61, 0x7A)
    static let uppercase: ByteSet = .range(0x41, 0x5A)
    static let letters: ByteSet = lowercase.union(uppercase)
    static let alphanumerics: ByteSet = letters.union(digits)
    static let word: ByteSet = alphanumerics.union(ByteSet(ascii: "_"))
    static let hexDigits: ByteSet = digits.union(.range(0x61, 0x66)).union(.range(0x41, 0x46))
    static let whitespace = ByteSet(ascii: " \t\n\r\u{0B}\u{0C}")

    mutating func insert(_ byte: UInt8) {
        let bit = UInt64(1) << UInt64(byte & 63)
        switch byte >> 6 {
        case 0: words.0 |= bit
        case 1: words.1 |= bit
        case 2: words.2 |= bit
        default: words.3 |= bit
        }
    }

    @inline(__always)
    func contains(_ byte: UInt8) -> Bool {
        let bit = UInt64(1) << UInt64(byte & 63)
        switch byte >> 6 {
        case 0: return words.0 & bit != 0
        case 1: return words.1 & bit != 0
        case 2: return words.2 & bit != 0
        default: return words.3 & bit != 0
        }
    }

    func union(_ other: ByteSet) -> ByteSet {
        var result = self
        result.words = (words.0 | other.words.0, words.1 | other.words.1, words.2 | other.words.2, words.3 | other.words.3)
        return result
    }

    func inverted() -> ByteSet {
        var result = self
        result.words = (~words.0, ~words.1, ~words.2, ~words.3)
        return result
    }

    static func == (lhs: ByteSet, rhs: ByteSet) -> Bool {
        lhs.words == rhs.words
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }
}
