import Foundation
import Testing

@testable import JWTVerify

/// Tokens cross between this library and PyJWT (with `cryptography`), an independent
/// implementation.
@Suite struct PyJWTInteropTests {
    let p8 = TestSupport.certificate("AuthKey_ABC123DEFG.p8")
    let publicPEM = TestSupport.certificate("AuthKey_ABC123DEFG.pub.pem")

    func python(_ script: String, _ arguments: [String] = []) throws -> String {
        let result = try TestSupport.run("python3", ["-c", script] + arguments)
        try #require(result.status == 0, "python3 failed: \(result.error)")
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func pyJWTTokensVerifyInSwift() throws {
        let now = Int(Date().timeIntervalSince1970)
        let script = """
            import jwt, sys
            key = open(sys.argv[1]).read()
            iat = int(sys.argv[2])
            print(jwt.encode({"iss": "DEF123GHIJ", "iat": iat}, key, algorithm="ES256", headers={"kid": "ABC123DEFG"}))
            print(jwt.encode({"iss": "DEF123GHIJ", "iat": str(iat)}, key, algorithm="ES256", headers={"kid": "ABC123DEFG"}))
            print(jwt.encode({"iss": "DEF123GHIJ", "iat": iat + 0.5}, key, algorithm="ES256", headers={"kid": "ABC123DEFG"}))
            """
        let tokens = try python(script, [p8, String(now)]).split(separator: "\n").map(String.init)
        try #require(tokens.count == 3)

        let publicKey = try ES256PublicKey(contentsOfFile: publicPEM)
        let generic = JWTVerifier(keys: [TestKeys.keyID: publicKey])
        for token in tokens {
            let verified = try generic.verify(token)
            #expect(verified.header.type == "JWT")
            #expect(verified.claims.issuer == TestKeys.teamID)
        }

        let apns = APNsProviderTokenVerifier(
            keys: [TestKeys.keyID: APNsRegisteredKey(publicKey: publicKey, teamID: TestKeys.teamID)],
            now: { Date(timeIntervalSince1970: Double(now) + 10) })
        let expectedIatWarning: [APNsTokenLintWarning.Kind?] = [nil, .issuedAtIsString, .issuedAtIsFractional]
        for (token, iatWarning) in zip(tokens, expectedIatWarning) {
            var connection = APNsConnectionTokenState(environment: .production)
            let accepted = try apns.verify(authorization: "bearer \(token)", connection: &connection)
            #expect(accepted.teamID == TestKeys.teamID)
            let kinds = accepted.lintWarnings.map(\.kind)
            #expect(kinds.contains(.typeHeaderPresent))
            if let iatWarning { #expect(kinds.contains(iatWarning)) }
        }
    }

    @Test func swiftTokensVerifyWithPyJWT() throws {
        let key = try ES256PrivateKey(contentsOfFile: p8)
        let now = Date()
        for includesType in [false, true] {
            let token = try JWTSigner(key: key, keyID: TestKeys.keyID, includesType: includesType)
                .makeProviderToken(teamID: TestKeys.teamID, issuedAt: now, extraClaims: ["note": "interop"])
            let script = """
                import jwt, sys, json
                key = open(sys.argv[1]).read()
                header = jwt.get_unverified_header(sys.argv[2])
                claims = jwt.decode(sys.argv[2], key, algorithms=["ES256"])
                print(json.dumps({"header": header, "claims": claims}, sort_keys=True))
                """
            let output = try python(script, [publicPEM, token])
            let decoded = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: [String: Any]]
            let header = try #require(decoded?["header"])
            let claims = try #require(decoded?["claims"])
            #expect(header["alg"] as? String == "ES256")
            #expect(header["kid"] as? String == TestKeys.keyID)
            #expect((header["typ"] as? String) == (includesType ? "JWT" : nil))
            #expect(claims["iss"] as? String == TestKeys.teamID)
            #expect(claims["iat"] as? Int == Int(now.timeIntervalSince1970))
            #expect(claims["note"] as? String == "interop")
        }
    }

    @Test func pyJWTRejectsATamperedSwiftToken() throws {
        let key = try ES256PrivateKey(contentsOfFile: p8)
        let token = try JWTSigner(key: key, keyID: TestKeys.keyID).makeProviderToken(teamID: TestKeys.teamID)
        let parts = token.split(separator: ".").map(String.init)
        let forged = [parts[0], Base64URL.encode(Array(#"{"iss":"EVILTEAM00","iat":1}"#.utf8)), parts[2]].joined(separator: ".")
        let script = """
            import jwt, sys
            try:
                jwt.decode(sys.argv[2], open(sys.argv[1]).read(), algorithms=["ES256"], options={"verify_iat": False})
                print("accepted")
            except jwt.InvalidSignatureError:
                print("rejected")
            """
        #expect(try python(script, [publicPEM, forged]) == "rejected")
    }
}
