import Foundation
import Testing

@testable import JWTVerify
import OpenSSLSupport

@Suite struct JWTVerifierTests {
    let key: ES256PrivateKey
    let verifier: JWTVerifier

    init() throws {
        key = try TestKeys.apnsPrivateKey()
        verifier = JWTVerifier(keys: [
            TestKeys.keyID: key.publicKey,
            TestKeys.otherKeyID: try TestKeys.otherPrivateKey().publicKey,
        ])
    }

    func expectCode(_ code: JWTError.Code, _ token: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let error = #expect(throws: JWTError.self, sourceLocation: sourceLocation) { try verifier.verify(token) }
        #expect(error?.code == code, "\(error?.message ?? "")", sourceLocation: sourceLocation)
    }

    @Test func acceptsAGoodTokenWithTheKeyItsKidSelects() throws {
        let token = try JWTSigner(key: key, keyID: TestKeys.keyID).makeProviderToken(teamID: TestKeys.teamID)
        #expect(try verifier.verify(token).keyID == TestKeys.keyID)
        let other = try JWTSigner(key: try TestKeys.otherPrivateKey(), keyID: TestKeys.otherKeyID)
            .makeProviderToken(teamID: TestKeys.teamID)
        #expect(try verifier.verify(other).keyID == TestKeys.otherKeyID)
    }

    @Test func kidSelectsTheKeySoAnotherKeysSignatureFails() throws {
        let token = try JWTSigner(key: try TestKeys.otherPrivateKey(), keyID: TestKeys.keyID)
            .makeProviderToken(teamID: TestKeys.teamID)
        expectCode(.signatureMismatch, token)
    }

    @Test(arguments: [
        #"{"alg":"none","kid":"ABC123DEFG"}"#, #"{"alg":"HS256","kid":"ABC123DEFG"}"#,
        #"{"alg":"RS256","kid":"ABC123DEFG"}"#, #"{"alg":"ES384","kid":"ABC123DEFG"}"#,
        #"{"alg":"es256","kid":"ABC123DEFG"}"#, #"{"alg":"ES256 ","kid":"ABC123DEFG"}"#,
        #"{"kid":"ABC123DEFG"}"#, #"{"alg":["ES256"],"kid":"ABC123DEFG"}"#, #"{"alg":null,"kid":"ABC123DEFG"}"#,
    ])
    func rejectsEveryAlgorithmButES256(header: String) throws {
        let token = try TestKeys.mint(headerJSON: header, claimsJSON: #"{"iss":"T","iat":1}"#, key: key)
        expectCode(.unsupportedAlgorithm, token)
    }

    @Test func rejectsHS256TokenMACedWithThePublicKeyBytes() throws {
        // The classic confusion attack: HMAC keyed with the public key's PEM text.
        let pem = try TestKeys.pem("AuthKey_ABC123DEFG.pub.pem")
        let input = Base64URL.encode(Array(#"{"alg":"HS256","kid":"ABC123DEFG"}"#.utf8)) + "."
            + Base64URL.encode(Array(#"{"iss":"T","iat":1}"#.utf8))
        let mac = try HMACSHA256.authenticationCode(for: Array(input.utf8), using: Array(pem.utf8))
        expectCode(.unsupportedAlgorithm, input + "." + Base64URL.encode(mac))
    }

    @Test func rejectsUnsignedNoneToken() {
        let token = Base64URL.encode(Array(#"{"alg":"none"}"#.utf8)) + "." + Base64URL.encode(Array("{}".utf8)) + "."
        expectCode(.unsupportedAlgorithm, token)
    }

    @Test func requiresAKnownStringKid() throws {
        let claims = #"{"iss":"T","iat":1}"#
        expectCode(.missingKeyID, try TestKeys.mint(headerJSON: #"{"alg":"ES256"}"#, claimsJSON: claims, key: key))
        expectCode(.missingKeyID, try TestKeys.mint(headerJSON: #"{"alg":"ES256","kid":7}"#, claimsJSON: claims, key: key))
        expectCode(.unknownKeyID, try TestKeys.mint(headerJSON: #"{"alg":"ES256","kid":"NOPE"}"#, claimsJSON: claims, key: key))
    }

    func withSignature(_ token: String, _ signature: [UInt8]) -> String {
        let input = token.split(separator: ".").prefix(2).joined(separator: ".")
        return input + "." + Base64URL.encode(signature)
    }

    @Test func requiresA64ByteSignatureWithScalarsInRange() throws {
        let token = try JWTSigner(key: key, keyID: TestKeys.keyID).makeProviderToken(teamID: TestKeys.teamID)
        let signature = try #require(Base64URL.decode(String(token.split(separator: ".")[2])))
        let order = ECDSASignatureCodecTests.order
        expectCode(.malformedSignature, withSignature(token, Array(signature.prefix(63))))
        expectCode(.malformedSignature, withSignature(token, signature + [0]))
        expectCode(.malformedSignature, withSignature(token, [UInt8](repeating: 0, count: 32) + signature.suffix(32)))
        expectCode(.malformedSignature, withSignature(token, signature.prefix(32) + [UInt8](repeating: 0, count: 32)))
        expectCode(.malformedSignature, withSignature(token, order + signature.suffix(32)))
        expectCode(.malformedSignature, withSignature(token, signature.prefix(32) + order))
        expectCode(.malformedSignature, withSignature(token, [UInt8](repeating: 0xFF, count: 64)))
        // A DER signature in place of r||s is the wrong shape too.
        expectCode(.malformedSignature, withSignature(token, [0x30, 0x44, 0x02, 0x20] + signature.prefix(32) + [0x02, 0x20] + signature.suffix(32)))
    }

    @Test func acceptsTheNegatedSFormLikeOpenSSLAndWycheproof() throws {
        // s' = n - s is also a valid ECDSA signature: ES256 has no low-s rule, and Wycheproof
        // marks this "signature malleability" case valid. The range check must not reject it.
        let token = try JWTSigner(key: key, keyID: TestKeys.keyID).makeProviderToken(teamID: TestKeys.teamID)
        let signature = try #require(Base64URL.decode(String(token.split(separator: ".")[2])))
        let s = Array(signature.suffix(32))
        var negated = [UInt8](repeating: 0, count: 32)
        var borrow = 0
        for index in (0..<32).reversed() {
            let value = Int(ECDSASignatureCodecTests.order[index]) - Int(s[index]) - borrow
            negated[index] = UInt8((value + 256) % 256)
            borrow = value < 0 ? 1 : 0
        }
        #expect(try verifier.verify(withSignature(token, signature.prefix(32) + negated)).keyID == TestKeys.keyID)
    }

    @Test func rejectsTokensWhoseClaimsOrHeaderChanged() throws {
        let token = try JWTSigner(key: key, keyID: TestKeys.keyID).makeProviderToken(teamID: TestKeys.teamID)
        let parts = token.split(separator: ".").map(String.init)
        let forgedClaims = Base64URL.encode(Array(#"{"iss":"EVILTEAM00","iat":1}"#.utf8))
        expectCode(.signatureMismatch, [parts[0], forgedClaims, parts[2]].joined(separator: "."))
        let forgedHeader = Base64URL.encode(Array(#"{"alg":"ES256","kid":"XYZ987WXYZ"}"#.utf8))
        expectCode(.signatureMismatch, [forgedHeader, parts[1], parts[2]].joined(separator: "."))
    }

    @Test func everySingleByteChangeIsRejected() throws {
        let token = try JWTSigner(key: key, keyID: TestKeys.keyID, includesType: true)
            .makeProviderToken(teamID: TestKeys.teamID)
        var bytes = Array(token.utf8)
        #expect(try verifier.verify(token).keyID == TestKeys.keyID)
        var rejected = 0
        for position in bytes.indices {
            let original = bytes[position]
            // A neighbouring character of the same class, and one that changes the class.
            for replacement in [original ^ 0x01, original == UInt8(ascii: ".") ? UInt8(ascii: "A") : UInt8(ascii: ".")] {
                bytes[position] = replacement
                let mutated = String(decoding: bytes, as: UTF8.self)
                #expect(throws: JWTError.self, "byte \(position) -> \(replacement)") { try verifier.verify(mutated) }
                rejected += 1
            }
            bytes[position] = original
        }
        #expect(rejected == 2 * token.utf8.count)
        #expect(OpenSSLErrorQueue.isEmpty)
    }
}
