/// A small anchored pattern language for identifiers and fixed strings, matched over UTF-8
/// bytes by a hand-written matcher (no regex engine on the hot path) in time linear in the
/// text.
///
/// A pattern always matches the **whole** string. It understands:
/// - literal characters, and `\` before any punctuation to make it literal (`\.`, `\-`);
/// - `.` (any byte except a newline), `\d` (digit), `\w` (letter, digit, `_`), `\s` (space),
///   `\h` (hex digit);
/// - classes `[a-z0-9_-]`, negated `[^/]`;
/// - quantifiers `?`, `*`, `+`, `{n}`, `{n,}`, `{n,m}` after any of the above;
/// - `|` between whole alternatives (there are no groups). `^` and `$` are accepted at the
///   ends and mean nothing more.
///
/// Quantifiers count bytes, so a non-ASCII character counts as 2 to 4.
///
/// ```swift
/// let pattern = try TextPattern("sess-[a-z0-9]{1,32}")
/// pattern.matches("sess-1")   // true
/// ```
public struct TextPattern: Sendable, Hashable, CustomStringConvertible {
    /// Why a pattern could not be compiled.
    public struct SyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The pattern as written.
        public var pattern: String
        /// What is wrong with it.
        public var message: String
        public var description: String { "pattern \"\(pattern)\": \(message)" }
    }

    struct Atom: Sendable, Hashable {
        var set: ByteSet
        var minimum: Int
        var maximum: Int
    }

    /// The source text.
    public let source: String
    private let alternatives: [[Atom]]

    /// Compiles a pattern.
    ///
    /// - Throws: ``SyntaxError`` naming what is wrong.
    public init(_ source: String) throws(SyntaxError) {
        self.source = source
        var alternatives: [[Atom]] = []
        var atoms: [Atom] = []
        var bytes = Array(source.utf8)
        if bytes.first == UInt8(ascii: "^") { bytes.removeFirst() }
        if bytes.last == UInt8(ascii: "$"), bytes.count < 2 || bytes[bytes.count - 2] != UInt8(ascii: "\\") {
            bytes.removeLast()
        }
        var index = 0
        func fail(_ message: String) -> SyntaxError { SyntaxError(pattern: source, message: message) }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            var set: ByteSet
            switch byte {
            case UInt8(ascii: "|"):
                alternatives.append(atoms)
                atoms = []
                continue
            case UInt8(ascii: "."):
                set = ByteSet([0x0A]).inverted()
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw fail("ends with a lone \\") }
                set = Self.escape(bytes[index])
                index += 1
            case UInt8(ascii: "["):
                var members = ByteSet()
                var negated = false
                if index < bytes.count, bytes[index] == UInt8(ascii: "^") {
                    negated = true
                    index += 1
                }
                var closed = false
                var first = true
                while index < bytes.count {
                    let member = bytes[index]
                    index += 1
                    if member == UInt8(ascii: "]"), !first {
                        closed = true
                        break
                    }
                    first = false
                    if member == UInt8(ascii: "\\") {
                        guard index < bytes.count else { throw fail("ends with a lone \\") }
                        let escaped = Self.escape(bytes[index])
                        index += 1
                        members = members.union(escaped)
                        continue
                    }
                    if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "-"), bytes[index + 1] != UInt8(ascii: "]") {
                        var upper = bytes[index + 1]
                        index += 2
                        if upper == UInt8(ascii: "\\"), index < bytes.count {
                            upper = bytes[index]
                            index += 1
                        }
                        guard member <= upper else { throw fail("range out of order in a class") }
                        members = members.union(.range(member, upper))
                        continue
                    }
                    members.insert(member)
                }
                guard closed else { throw fail("a class [ is not closed") }
                set = negated ? members.inverted() : members
            case UInt8(ascii: "?"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "{"):
                throw fail("a quantifier \(String(UnicodeScalar(byte))) has nothing to repeat")
            case UInt8(ascii: "("), UInt8(ascii: ")"):
                throw fail("groups are not supported; use | between whole alternatives")
            default:
                set = ByteSet([byte])
            }
            var atom = Atom(set: set, minimum: 1, maximum: 1)
            if index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "?"): atom.minimum = 0; index += 1
                case UInt8(ascii: "*"): atom.minimum = 0; atom.maximum = Int.max; index += 1
                case UInt8(ascii: "+"): atom.maximum = Int.max; index += 1
                case UInt8(ascii: "{"):
                    guard let close = bytes[index...].firstIndex(of: UInt8(ascii: "}")) else {
                        throw fail("a {n,m} quantifier is not closed")
                    }
                    let body = String(decoding: bytes[(index + 1)..<close], as: UTF8.self)
                    let parts = body.split(separator: ",", omittingEmptySubsequences: false)
                    guard (1...2).contains(parts.count), let lower = Int(parts[0]), lower >= 0 else {
                        throw fail("bad quantifier {\(body)}")
                    }
                    var upper = lower
                    if parts.count == 2 {
                        if parts[1].isEmpty {
                            upper = Int.max
                        } else {
                            guard let value = Int(parts[1]), value >= lower else { throw fail("bad quantifier {\(body)}") }
                            upper = value
                        }
                    }
                    atom.minimum = lower
                    atom.maximum = upper
                    index = close + 1
                default: break
                }
            }
            atoms.append(atom)
        }
        alternatives.append(atoms)
        self.alternatives = alternatives
    }

    /// A pattern that matches exactly `text`.
    public static func literal(_ text: String) -> TextPattern {
        TextPattern(source: text, alternatives: [text.utf8.map { Atom(set: ByteSet([$0]), minimum: 1, maximum: 1) }])
    }

    private init(source: String, alternatives: [[Atom]]) {
        self.source = source
        self.alternatives = alternatives
    }

    private static func escape(_ byte: UInt8) -> ByteSet {
        switch byte {
        case UInt8(ascii: "d"): ByteSet.digits
        case UInt8(ascii: "w"): ByteSet.word
        case UInt8(ascii: "s"): ByteSet.whitespace
        case UInt8(ascii: "h"): ByteSet.hexDigits
        case UInt8(ascii: "n"): ByteSet([0x0A])
        case UInt8(ascii: "t"): ByteSet([0x09])
        default: ByteSet([byte])
        }
    }

    /// Whether the whole of `text` matches.
    public func matches(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { matches($0) }
    }

    /// Whether the whole of `bytes` matches.
    ///
    /// Takes time proportional to the text's length times the pattern's atoms, whatever the
    /// pattern: the text is sender-controlled, and a backtracking matcher let a pattern such
    /// as `a*a*a*a*b` run for hours on a few KiB.
    public func matches(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = bytes.count
        // ends[p]: the atoms so far can match exactly bytes[0..<p]. One pass per atom over the
        // set of such positions visits each (position, atom) pair once.
        var ends = [Bool](repeating: false, count: count + 1)
        var next = ends
        // reachedBefore[p]: how many positions below p are in `ends`, so asking whether any
        // position of a window is in it takes one subtraction.
        var reachedBefore = [Int](repeating: 0, count: count + 2)
        alternative: for atoms in alternatives {
            for position in 0...count { ends[position] = position == 0 }
            for atom in atoms {
                for position in 0...count {
                    reachedBefore[position + 1] = reachedBefore[position] + (ends[position] ? 1 : 0)
                }
                guard reachedBefore[count + 1] > 0 else { continue alternative }
                // The first position of the run of bytes in the atom's set that ends at `position`.
                var runStart = 0
                for position in 0...count {
                    if position > 0, !atom.set.contains(bytes[position - 1]) { runStart = position }
                    // The atom can end here if it can start at a reachable position in this window:
                    // its bytes all in its set, and its length within its bounds.
                    let lowest = max(runStart, position - atom.maximum)
                    let highest = position - atom.minimum
                    next[position] = lowest <= highest && reachedBefore[highest + 1] > reachedBefore[lowest]
                }
                swap(&ends, &next)
            }
            if ends[count] { return true }
        }
        return false
    }

    public var description: String { source }

    public static func == (lhs: TextPattern, rhs: TextPattern) -> Bool { lhs.source == rhs.source }
    public func hash(into hasher: inout Hasher) { hasher.combine(source) }
}
