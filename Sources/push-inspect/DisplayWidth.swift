/// How many terminal columns text takes: 2 for East Asian Wide and Fullwidth characters and
/// emoji, 0 for combining marks and other zero-width characters, 1 for the rest (East Asian
/// Ambiguous characters such as `…` included, as terminals outside CJK legacy settings show them).
///
/// Self-contained rather than glibc's `wcwidth`: `wcwidth` answers -1 for any non-ASCII
/// character unless the process switches `LC_CTYPE` to a UTF-8 locale, which is global state
/// and may be missing from a minimal container, and its tables follow the installed glibc's
/// Unicode version, so the same capture would lay out differently from machine to machine.
/// Here the emoji and mark properties come from the Swift runtime's own Unicode data and the
/// wide ranges from the table below, so the layout depends on nothing outside the binary.
enum DisplayWidth {
    /// The columns `text` takes: the sum of its characters' widths.
    static func of(_ text: String) -> Int {
        text.reduce(0) { $0 + of($1) }
    }

    /// The columns one character (a grapheme cluster) takes: the sum of its
    /// ``drawnPieces(of:)``, which is one piece but for stray skin-tone modifiers.
    static func of(_ character: Character) -> Int {
        // Most characters have no modifier after their first scalar: measured in place,
        // without the pieces' strings.
        guard hasLaterModifier(character) else { return ofCluster(character.unicodeScalars) }
        return drawnPieces(of: character).reduce(0) { $0 + ofCluster($1.unicodeScalars) }
    }

    /// Whether a skin-tone modifier follows the first scalar of `character`: only then can
    /// the character be drawn in more than one piece.
    private static func hasLaterModifier(_ character: Character) -> Bool {
        character.unicodeScalars.dropFirst().contains(where: \.properties.isEmojiModifier)
    }

    /// `character` as a terminal draws it, in pieces that each take their own cells.
    ///
    /// A skin-tone modifier (U+1F3FB–U+1F3FF) right after an emoji modifier base (👍🏻) is
    /// drawn in the base's cell, but one after anything else is an emoji of its own, two
    /// columns wide. Unicode's grapheme rules put every modifier in the cluster before it,
    /// so a run of them is one `Character`; measured as one it would take 2 columns where
    /// a terminal draws 2 per modifier, and the row would overflow its column. Each stray modifier
    /// starts a piece (with the scalars that follow it), so they are measured, and cut
    /// between, as the terminal draws them.
    static func drawnPieces(of character: Character) -> [String] {
        guard hasLaterModifier(character) else { return [String(character)] }
        let scalars = character.unicodeScalars
        var pieces: [String] = []
        var piece = String.UnicodeScalarView()
        var previous: Unicode.Scalar?
        for scalar in scalars {
            if let previous, scalar.properties.isEmojiModifier, !previous.properties.isEmojiModifierBase {
                pieces.append(String(piece))
                piece = String.UnicodeScalarView()
            }
            piece.append(scalar)
            previous = scalar
        }
        pieces.append(String(piece))
        return pieces
    }

    /// The columns a cluster the terminal draws as one takes. It is drawn in the cell of its
    /// base: `e` with a combining acute accent is 1 column, a flag or a family emoji joined
    /// by zero-width joiners 2, not the sum of their scalars.
    private static func ofCluster(_ scalars: String.UnicodeScalarView) -> Int {
        var width = 0
        for scalar in scalars {
            let scalarWidth = of(scalar)
            if scalarWidth == 2 { return 2 }
            width = max(width, scalarWidth)
        }
        // VS16 asks for emoji presentation of a character that defaults to text (❤️, ☺️).
        if let first = scalars.first, first.properties.isEmoji, scalars.contains(variationSelector16) {
            return 2
        }
        return width
    }

    /// The columns one scalar takes on its own.
    static func of(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        // Nothing below the combining diacritics is wide or zero-width once controls are
        // escaped (the soft hyphen, a format character, shows as a hyphen in terminals).
        if value < 0x300 { return 1 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        // Hangul medial vowels and final consonants join the leading consonant's cell.
        if (0x1160...0x11FF).contains(value) || (0xD7B0...0xD7FF).contains(value) { return 0 }
        if scalar.properties.isEmojiPresentation || isWide(value) { return 2 }
        return 1
    }

    private static let variationSelector16: Unicode.Scalar = "\u{FE0F}"

    /// Whether `value` is in ``wideRanges``, by binary search.
    private static func isWide(_ value: UInt32) -> Bool {
        guard value >= 0x1100 else { return false }
        var low = 0, high = wideRanges.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let range = wideRanges[middle]
            if value < range.lowerBound {
                high = middle - 1
            } else if value > range.upperBound {
                low = middle + 1
            } else {
                return true
            }
        }
        return false
    }

    /// The East Asian Wide (W) and Fullwidth (F) ranges of Unicode 15.1's EastAsianWidth.txt
    /// that are not emoji (``Unicode/Scalar/Properties/isEmojiPresentation`` gives those),
    /// sorted. Zero-width marks inside them (U+3099, U+309A) are caught before this is read.
    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x2329...0x232A, 0x2E80...0x2E99, 0x2E9B...0x2EF3, 0x2F00...0x2FD5, 0x2FF0...0x2FFF,
        0x3000...0x303E, 0x3041...0x3096, 0x3099...0x30FF, 0x3105...0x312F, 0x3131...0x318E, 0x3190...0x31E3,
        0x31EF...0x321E, 0x3220...0x3247, 0x3250...0x4DBF, 0x4E00...0xA48C, 0xA490...0xA4C6, 0xA960...0xA97C,
        0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE52, 0xFE54...0xFE66, 0xFE68...0xFE6B,
        0xFF01...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x16FF0...0x16FF1, 0x17000...0x187F7,
        0x18800...0x18CD5, 0x18D00...0x18D08, 0x1AFF0...0x1AFF3, 0x1AFF5...0x1AFFB, 0x1AFFD...0x1AFFE,
        0x1B000...0x1B122, 0x1B132...0x1B132, 0x1B150...0x1B152, 0x1B155...0x1B155, 0x1B164...0x1B167,
        0x1B170...0x1B2FB, 0x1F200...0x1F202, 0x1F210...0x1F23B, 0x1F240...0x1F248, 0x1F250...0x1F251,
        0x1F260...0x1F265, 0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]
}
