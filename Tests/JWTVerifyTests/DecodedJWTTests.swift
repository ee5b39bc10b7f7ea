import Testing

@testable import JWTVerify

@Suite struct DecodedJWTTests {
    @Test func exposesHeaderAndClaimsForInspectionEvenWhenUnverifiable() throws {
        let header = Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8))
        let claims = Base64URL.encode(Array(#"{"iss":"X","iat":"1459143580650"}"#.utf8))
        let decoded = try DecodedJWT(parsing: "\(header).\(claims).")
        #expect(decoded.header.algorithm == "none")
        #expect(decoded.header.json == #"{"alg":"none","typ":"JWT"}"#)
        #expect(decoded.claims.issuer == "X")
        #expect(decoded.claims.issuedAt == .string("1459143580650"))
        #expect(decoded.signature.isEmpty)
    }

    @Test(arguments: [
        "", "a", "a.b", "a.b.c.d", "..", "e30.e30.AA.",
        "e30=.e30.AAAA", "e30.e30=.AAAA", "e30.e30.AA==", "e30 .e30.AAAA", "e30.e30.AA\n", "e30.e3+.AAAA",
        "W10.e30.AAAA", "e30.W10.AAAA", "e30.InN0ciI.AAAA", "bnVsbA.e30.AAAA",
    ])
    func rejectsMalformedTokens(token: String) {
        let error = #expect(throws: JWTError.self) { try DecodedJWT(parsing: token) }
        #expect(error?.code == .malformedToken)
    }
}
