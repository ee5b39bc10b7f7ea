/// Splits a fuzz input into the parts a target reads: option bytes first, then pieces
/// separated by a delimiter. Mutations that move a delimiter move the boundary, so one
/// input format serves every target with several parts.
public struct FuzzInput {
    private let bytes: UnsafeRawBufferPointer
    private var position = 0

    public init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// Whether everything has been taken.
    public var isEmpty: Bool { position >= bytes.count }

    /// The next byte, or 0 past the end.
    public mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    /// Everything not yet taken.
    public mutating func rest() -> [UInt8] {
        defer { position = bytes.count }
        return position < bytes.count ? Array(bytes[position...]) : []
    }

    /// The bytes up to the next `delimiter` (which is skipped), or the rest.
    public mutating func piece(until delimiter: [UInt8]) -> [UInt8] {
        let remaining = bytes[position...]
        if let range = Self.firstRange(of: delimiter, in: remaining) {
            defer { position = range.upperBound }
            return Array(bytes[position..<range.lowerBound])
        }
        return rest()
    }

    /// Every piece between `delimiter`s, the last one included even when empty.
    public mutating func pieces(separatedBy delimiter: [UInt8]) -> [[UInt8]] {
        var pieces: [[UInt8]] = []
        repeat { pieces.append(piece(until: delimiter)) } while !isEmpty
        return pieces
    }

    private static func firstRange(of delimiter: [UInt8], in text: Slice<UnsafeRawBufferPointer>) -> Range<Int>? {
        guard !delimiter.isEmpty, text.count >= delimiter.count else { return nil }
        var start = text.startIndex
        while start + delimiter.count <= text.endIndex {
            if text[start] == delimiter[0], text[start..<(start + delimiter.count)].elementsEqual(delimiter) {
                return start..<(start + delimiter.count)
            }
            start += 1
        }
        return nil
    }
}
