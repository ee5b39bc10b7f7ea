/// Reads the token out of an `authorization` value, the way JWTVerify does, for the
/// checks that come before token verification and for showing rejected tokens.
enum BearerToken {
    private static let scheme = "bearer"

    /// The text after `bearer ` (case-insensitive), or the whole trimmed value for
    /// another scheme; nil when nothing is there (empty, blank, or `bearer` alone), which
    /// APNs calls `MissingProviderToken`.
    static func token(in header: String) -> Substring? {
        let trimmed = trimmingSpacesAndTabs(Substring(header))
        guard !trimmed.isEmpty else { return nil }
        let schemeCount = scheme.utf8.count
        guard trimmed.utf8.count >= schemeCount,
              trimmed.utf8.prefix(schemeCount).elementsEqual(scheme.utf8, by: { $0 | 0x20 == $1 })
        else { return trimmed }
        let rest = Substring(trimmed.utf8.dropFirst(schemeCount))
        guard let first = rest.utf8.first else { return nil }
        guard first == 0x20 || first == 0x09 else { return trimmed }
        let token = trimmingSpacesAndTabs(rest)
        return token.isEmpty ? nil : token
    }

    /// Without leading and trailing spaces and tabs, as HTTP field values are read.
    private static func trimmingSpacesAndTabs(_ text: Substring) -> Substring {
        let utf8 = text.utf8
        guard let start = utf8.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }),
              let last = utf8.lastIndex(where: { $0 != 0x20 && $0 != 0x09 })
        else { return Substring() }
        return text[start...last]
    }
}
