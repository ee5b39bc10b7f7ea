import JWTVerify
import Testing

struct APNsTokenLintKindTests {
    typealias Kind = APNsTokenLintWarning.Kind

    /// Each kind equals only itself, hashes apart from the others, and keeps its name.
    @Test func kindsAreDistinctAndNamed() {
        let kinds: [Kind] = [
            .issuedAtIsString, .issuedAtIsFractional, .issuedAtInFuture, .typeHeaderPresent,
            .unexpectedHeaderField, .unexpectedClaim,
        ]
        for (index, kind) in kinds.enumerated() {
            for (otherIndex, other) in kinds.enumerated() { #expect((kind == other) == (index == otherIndex)) }
        }
        #expect(Set(kinds).count == kinds.count)
        #expect(Set(kinds.map(\.description)) == [
            "issuedAtIsString", "issuedAtIsFractional", "issuedAtInFuture", "typeHeaderPresent",
            "unexpectedHeaderField", "unexpectedClaim",
        ])
    }
}
