import JWTVerify
import Testing

/// One reading of `authorization` values, shared by the verifier and the mock.
@Suite struct BearerAuthorizationTests {
    func read(_ text: String) -> (BearerAuthorization, String?) {
        let bytes = Array(text.utf8)
        let reading = bytes.withUnsafeBufferPointer { BearerAuthorization.read($0) }
        switch reading {
        case .missing: return (reading, nil)
        case .token(let range), .otherScheme(let range): return (reading, String(decoding: bytes[range], as: UTF8.self))
        }
    }

    @Test func readsTheTokenAfterTheSchemeInAnyCaseAndBlanks() {
        #expect(read("bearer abc.def") == (.token(7..<14), "abc.def"))
        #expect(read(" \tBeArEr \t abc \t").1 == "abc")
        #expect(read("BEARER x").0 == .token(7..<8))
    }

    @Test func nothingToReadIsMissing() {
        for text in ["", "   ", "\t", "bearer", "Bearer  \t ", " bearer "] {
            #expect(read(text).0 == .missing, "\(text.debugDescription)")
        }
    }

    @Test func anotherSchemeIsTheWholeTrimmedValue() {
        #expect(read(" Basic dXNlcg== ").1 == "Basic dXNlcg==")
        #expect(read("bearerx.y").1 == "bearerx.y")
        #expect(read("eyJ.only").1 == "eyJ.only")
        if case .otherScheme = read("bearé x").0 {} else { Issue.record("non-ASCII scheme read as bearer") }
    }
}
