import Foundation

/// A provider token that APNs would accept for this push.
public struct APNsProviderTokenAcceptance: Sendable {
    let record: VerifiedTokenRecord
    /// Seconds by which `iat` was ahead of the clock, if it was.
    let futureBy: Double?

    /// Whether the token was found in the verified-token cache (no ECDSA verify ran).
    public let wasCached: Bool

    /// The team the token authenticated (its `iss`).
    public var teamID: String { record.teamID }
    /// The key ID that verified the signature.
    public var keyID: String { record.keyID }
    /// The token's `iat`.
    public var issuedAt: Date { Date(timeIntervalSince1970: record.issuedAt) }
    /// The decoded header, for inspection.
    public var header: JOSEHeader { record.token.header }
    /// The decoded claims, for inspection.
    public var claims: JWTClaims { record.token.claims }

    /// Oddities APNs tolerates: numeric-string or fractional `iat`, `typ`, extra header
    /// members or claims, and an `iat` slightly in the future.
    public var lintWarnings: [APNsTokenLintWarning] {
        guard let futureBy else { return record.lintWarnings }
        return record.lintWarnings + [
            APNsTokenLintWarning(
                kind: .issuedAtInFuture,
                message: "iat is \(SecondsText.roundedUp(futureBy)) s ahead of the server clock; accepted as clock skew")
        ]
    }
}
