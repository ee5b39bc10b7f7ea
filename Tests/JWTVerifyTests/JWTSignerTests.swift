import Foundation
import Testing

@testable import JWTVerify

@Suite struct JWTSignerTests {
    func segments(_ token: String) throws -> [String] {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(parts.count == 3)
        return parts
    }

    func decodedText(_ segment: String) throws -> String {
        String(decoding: try #require(Base64URL.decode(segment)), as: UTF8.self)
    }

    @Test func mintsTheAPNsHeaderAndClaimsExactly() throws {
        let signer = JWTSigner(key: try TestKeys.apnsPrivateKey(), keyID: TestKeys.keyID)
        let token = try signer.makeProviderToken(teamID: TestKeys.teamID, issuedAt: Date(timeIntervalSince1970: 1_795_958_793.9))
        let parts = try segments(token)
        #expect(try decodedText(parts[0]) == #"{"alg":"ES256","kid":"ABC123DEFG"}"#)
        #expect(try decodedText(parts[1]) == #"{"iss":"DEF123GHIJ","iat":1795958793}"#)
        #expect(try #require(Base64URL.decode(parts[2])).count == 64)
        #expect(!token.contains("="))
    }

    @Test func addsTypAndExtraClaimsWhenAsked() throws {
        let signer = JWTSigner(key: try TestKeys.apnsPrivateKey(), keyID: TestKeys.keyID, includesType: true)
        let token = try signer.makeProviderToken(
            teamID: TestKeys.teamID, issuedAt: Date(timeIntervalSince1970: 100), extraClaims: ["z": 1, "a": "x"])
        let parts = try segments(token)
        #expect(try decodedText(parts[0]) == #"{"alg":"ES256","kid":"ABC123DEFG","typ":"JWT"}"#)
        #expect(try decodedText(parts[1]) == #"{"iss":"DEF123GHIJ","iat":100,"a":"x","z":1}"#)
    }

    @Test func refusesExtraClaimsThatRedefineIssOrIat() throws {
        let signer = JWTSigner(key: try TestKeys.apnsPrivateKey(), keyID: TestKeys.keyID)
        for name in ["iss", "iat"] {
            let error = #expect(throws: JWTError.self) {
                try signer.makeProviderToken(teamID: TestKeys.teamID, extraClaims: [name: 1])
            }
            #expect(error?.code == .invalidClaims)
        }
    }

    @Test func signedTokensVerifyAndDecode() throws {
        let key = try TestKeys.apnsPrivateKey()
        let signer = JWTSigner(key: key, keyID: TestKeys.keyID)
        let token = try signer.sign(claims: ["iss": "T", "iat": 5, "nested": ["a": [1, 2]]])
        let verified = try JWTVerifier(keys: [TestKeys.keyID: key.publicKey]).verify(token)
        #expect(verified.keyID == TestKeys.keyID)
        #expect(verified.claims.fields == ["iss": "T", "iat": 5, "nested": ["a": [1, 2]]])
        #expect(verified.header.algorithm == "ES256")
        #expect(verified.header.keyID == TestKeys.keyID)
        #expect(verified.header.type == nil)
    }
}
