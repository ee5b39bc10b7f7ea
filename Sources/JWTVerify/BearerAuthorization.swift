/// How an `authorization` header value reads, the way APNs reads it: `bearer` (any case),
/// one or more spaces or tabs, the token; blanks around the whole value are ignored.
///
/// The token verifier and the mock's checks before verification share this one reading,
/// so a value can never mean a token to one and nothing to the other.
///
/// ```swift
/// let value = Array("Bearer eyJ...".utf8)
/// if case .token(let range) = value.withUnsafeBufferPointer({ BearerAuthorization.read($0) }) { ... }
/// ```
public enum BearerAuthorization: Equatable, Sendable {
    /// Nothing to read: empty, blank, or `bearer` alone (APNs: `MissingProviderToken`).
    case missing
    /// The token's bytes, after the scheme and its blanks.
    case token(Range<Int>)
    /// Some other text (another scheme, or `bearer` glued to what follows): the whole
    /// value without its surrounding blanks.
    case otherScheme(Range<Int>)

    /// Reads `header`'s bytes.
    public static func read(_ header: UnsafeBufferPointer<UInt8>) -> BearerAuthorization {
        func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
        var start = 0
        var end = header.count
        while start < end, isBlank(header[start]) { start += 1 }
        while end > start, isBlank(header[end - 1]) { end -= 1 }
        guard start < end else { return .missing }
        // "bearer", compared case-insensitively: OR-ing 0x20 lowercases only A-Z among
        // bytes that could then equal a lowercase letter.
        let scheme: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0x62, 0x65, 0x61, 0x72, 0x65, 0x72)
        let schemeCount = 6
        let matches =
            end - start >= schemeCount
            && header[start] | 0x20 == scheme.0 && header[start + 1] | 0x20 == scheme.1
            && header[start + 2] | 0x20 == scheme.2 && header[start + 3] | 0x20 == scheme.3
            && header[start + 4] | 0x20 == scheme.4 && header[start + 5] | 0x20 == scheme.5
        guard matches else { return .otherScheme(start..<end) }
        var tokenStart = start + schemeCount
        if tokenStart == end { return .missing }
        guard isBlank(header[tokenStart]) else { return .otherScheme(start..<end) }
        while tokenStart < end, isBlank(header[tokenStart]) { tokenStart += 1 }
        return .token(tokenStart..<end)
    }
}
