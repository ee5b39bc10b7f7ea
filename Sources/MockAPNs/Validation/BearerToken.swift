import JWTVerify
import StrictJSON

/// Reads the token out of an `authorization` value with JWTVerify's `BearerAuthorization`, for the
/// checks that come before token verification and for showing rejected tokens.
enum BearerToken {
    /// The text after `bearer ` (case-insensitive), or the whole trimmed value for
    /// another scheme; nil when nothing is there (empty, blank, or `bearer` alone), which
    /// APNs calls `MissingProviderToken`.
    static func token(in header: String) -> Substring? {
        let reading = header.withBorrowedUTF8 { BearerAuthorization.read($0) }
        let range: Range<Int>
        switch reading {
        case .missing: return nil
        case .token(let token): range = token
        case .otherScheme(let whole): range = whole
        }
        let utf8 = header.utf8
        let lower = utf8.index(utf8.startIndex, offsetBy: range.lowerBound)
        let upper = utf8.index(lower, offsetBy: range.count)
        return header[lower..<upper]
    }
}
