import StrictJSON

/// Finds where a member's value lies in JSON text that the strict parser accepted, so that a
/// payload's `parsed` gives back the body's bytes exactly (a tree loses the order of keys and
/// the spelling of numbers and escapes; the line's text keeps them), and where each record
/// lies in a control-API list.
///
/// The text is known to be valid JSON, so the walk only tells strings, containers and
/// scalars apart; keys are compared as written, which is how the encoder writes them. On
/// other text it finds nothing useful, but never reads outside it.
enum CaptureLineScan {
    /// The range of the value at `path` (member keys from the top-level object down), or nil
    /// when one of them is not there as written.
    static func valueRange(in line: UnsafeBufferPointer<UInt8>, path keys: StaticString...) -> Range<Int>? {
        var range = skippingWhitespace(line, from: 0)..<line.count
        for key in keys {
            let wanted = UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount)
            guard let found = memberValue(in: line, objectAt: range.lowerBound, key: wanted) else { return nil }
            range = found
        }
        return range
    }

    /// The ranges of the elements of the array that is the top-level object's member `key`;
    /// nil when there is no such array.
    static func elementRanges(in text: UnsafeBufferPointer<UInt8>, arrayMember key: String) -> [Range<Int>]? {
        var key = key
        let found = key.withUTF8 { memberValue(in: text, objectAt: skippingWhitespace(text, from: 0), key: $0) }
        guard let array = found, text[array.lowerBound] == UInt8(ascii: "[") else { return nil }
        var ranges: [Range<Int>] = []
        var index = skippingWhitespace(text, from: array.lowerBound + 1)
        while index < array.upperBound, text[index] != UInt8(ascii: "]") {
            let end = endOfValue(text, at: index)
            ranges.append(index..<end)
            index = skippingWhitespace(text, from: end)
            guard index < array.upperBound, text[index] == UInt8(ascii: ",") else { break }
            index = skippingWhitespace(text, from: index + 1)
        }
        return ranges
    }

    /// The value of `key` in the object whose `{` is at `start`.
    private static func memberValue(
        in text: UnsafeBufferPointer<UInt8>, objectAt start: Int, key wanted: UnsafeBufferPointer<UInt8>
    ) -> Range<Int>? {
        guard start < text.count, text[start] == UInt8(ascii: "{") else { return nil }
        var index = skippingWhitespace(text, from: start + 1)
        while index < text.count, text[index] == UInt8(ascii: "\"") {
            let keyEnd = endOfString(text, openingQuote: index)
            let matches = keyEnd - index - 2 == wanted.count && text[(index + 1)..<(keyEnd - 1)].elementsEqual(wanted)
            index = skippingWhitespace(text, from: keyEnd)
            guard index < text.count, text[index] == UInt8(ascii: ":") else { return nil }
            let valueStart = skippingWhitespace(text, from: index + 1)
            let valueEnd = endOfValue(text, at: valueStart)
            if matches { return valueStart..<valueEnd }
            index = skippingWhitespace(text, from: valueEnd)
            guard index < text.count, text[index] == UInt8(ascii: ",") else { return nil }
            index = skippingWhitespace(text, from: index + 1)
        }
        return nil
    }

    /// Just past the value that starts at `start`.
    private static func endOfValue(_ text: UnsafeBufferPointer<UInt8>, at start: Int) -> Int {
        guard start < text.count else { return start }
        switch text[start] {
        case UInt8(ascii: "\""):
            return endOfString(text, openingQuote: start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var index = start
            while index < text.count {
                switch text[index] {
                case UInt8(ascii: "\""):
                    index = endOfString(text, openingQuote: index)
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return index + 1 }
                default:
                    break
                }
                index += 1
            }
            return index
        default:
            // A number, true, false or null: up to the next delimiter or whitespace.
            var index = start
            while index < text.count {
                switch text[index] {
                case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D: return index
                default: index += 1
                }
            }
            return index
        }
    }

    /// Just past the quote that closes the string opened at `openingQuote`.
    private static func endOfString(_ text: UnsafeBufferPointer<UInt8>, openingQuote: Int) -> Int {
        guard let base = text.baseAddress else { return openingQuote + 1 }
        var index = openingQuote + 1
        var skipped: UInt64 = 0
        while index < text.count {
            // Eight bytes a step up to the next quote or backslash.
            index = JSONTextScan.firstSpecial(base, from: index, count: text.count, controlBelow: 0, skipped: &skipped)
            guard index < text.count else { break }
            if text[index] == UInt8(ascii: "\"") { return index + 1 }
            index += 2  // A backslash and the byte it escapes.
        }
        return text.count
    }

    private static func skippingWhitespace(_ text: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        while index < text.count {
            switch text[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return index
            }
        }
        return index
    }
}
