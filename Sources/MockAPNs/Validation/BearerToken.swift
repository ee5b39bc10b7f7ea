/// Reads the token out of an `authorization` value, the way JWTVerify does, for the
/// checks that come before token verification and for showing rejected tokens.
enum BearerToken {
    private static let scheme = "bearer"

    /// The text after `bearer ` (case-insensitive), or the whole trimmed value for
    /// another scheme; nil when nothing is there (empty, blank, or `bearer` alone), which
    /// APNs calls `MissingProviderToken`.
    static func token(in header: String) -> Substring? {
        // Offsets from one pass over the contiguous bytes: this runs for every push, and
        // the Substring-based version walked `utf8` through generic indices.
        var text = header
        let range = text.withUTF8 { bytes -> Range<Int>? in
            func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
            var start = 0
            var end = bytes.count
            while start < end, isBlank(bytes[start]) { start += 1 }
            while end > start, isBlank(bytes[end - 1]) { end -= 1 }
            guard start < end else { return nil }
            let schemeEnd = start + schemeBytes.count
            guard schemeEnd <= end else { return start..<end }
            for offset in 0..<schemeBytes.count where bytes[start + offset] | 0x20 != schemeBytes[offset] {
                return start..<end
            }
            guard schemeEnd < end else { return nil }
            guard isBlank(bytes[schemeEnd]) else { return start..<end }
            var tokenStart = schemeEnd
            while tokenStart < end, isBlank(bytes[tokenStart]) { tokenStart += 1 }
            return tokenStart < end ? tokenStart..<end : nil
        }
        guard let range else { return nil }
        let utf8 = header.utf8
        let lower = utf8.index(utf8.startIndex, offsetBy: range.lowerBound)
        let upper = utf8.index(lower, offsetBy: range.count)
        return header[lower..<upper]
    }

    private static let schemeBytes = Array(scheme.utf8)
}
