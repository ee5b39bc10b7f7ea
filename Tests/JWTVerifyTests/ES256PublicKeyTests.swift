import Foundation
import Testing

@testable import JWTVerify
import OpenSSLSupport

@Suite struct ES256PublicKeyTests {
    @Test func pemPublicKeyMatchesTheOneDerivedFromThePrivateKey() throws {
        for id in [TestKeys.keyID, TestKeys.otherKeyID] {
            let fromPEM = try ES256PublicKey(contentsOfFile: TestSupport.certificate("AuthKey_\(id).pub.pem"))
            let derived = try ES256PrivateKey(contentsOfFile: TestSupport.certificate("AuthKey_\(id).p8")).publicKey
            #expect(fromPEM.jwk() == derived.jwk())
        }
        let a = try ES256PublicKey(contentsOfFile: TestSupport.certificate("AuthKey_ABC123DEFG.pub.pem"))
        let b = try ES256PublicKey(contentsOfFile: TestSupport.certificate("AuthKey_XYZ987WXYZ.pub.pem"))
        #expect(a.jwk() != b.jwk())
    }

    @Test func jwkRoundTripsAndVerifies() throws {
        let privateKey = try TestKeys.apnsPrivateKey()
        let json = privateKey.publicKey.jwk(keyID: TestKeys.keyID).json
        #expect(json.hasPrefix(#"{"kty":"EC","crv":"P-256","x":""#))
        #expect(json.hasSuffix(#","kid":"ABC123DEFG"}"#))
        let fromJWK = try ES256PublicKey(jwk: json)
        let signature = try privateKey.signature(for: Array("jwk".utf8))
        #expect(fromJWK.isValidSignature(signature, for: Array("jwk".utf8)))
    }

    @Test func jwkMatchesPythonCryptography() throws {
        let script = """
            import json, base64
            from cryptography.hazmat.primitives import serialization
            k = serialization.load_pem_public_key(open('\(TestSupport.certificate("AuthKey_ABC123DEFG.pub.pem"))','rb').read())
            n = k.public_numbers()
            b = lambda v: base64.urlsafe_b64encode(v.to_bytes(32,'big')).rstrip(b'=').decode()
            print(json.dumps({"x": b(n.x), "y": b(n.y)}))
            """
        let result = try TestSupport.run("python3", ["-c", script])
        #expect(result.status == 0, "\(result.error)")
        let jwk = try ES256PublicKey(contentsOfFile: TestSupport.certificate("AuthKey_ABC123DEFG.pub.pem")).jwk()
        let expected = try JSONDecoder().decode([String: String].self, from: Data(result.output.utf8))
        #expect(jwk.x == expected["x"])
        #expect(jwk.y == expected["y"])
    }

    @Test func rejectsOtherKeyTypesAndCurvesFromPEMNamingThem() throws {
        let p384 = #expect(throws: ES256KeyError.self) {
            try ES256PublicKey(pemRepresentation: try TestKeys.publicPEM(ofPrivatePEM: try TestKeys.p384PrivateKeyPEM()))
        }
        #expect(p384?.code == .unsupportedCurve)
        #expect(p384?.message.contains("secp384r1") == true)
        let rsa = #expect(throws: ES256KeyError.self) {
            try ES256PublicKey(pemRepresentation: try TestKeys.publicPEM(ofPrivatePEM: try TestKeys.rsaPrivateKeyPEM()))
        }
        #expect(rsa?.code == .unsupportedKeyType)
        #expect(rsa?.message.contains("RSA") == true)
        let ed = #expect(throws: ES256KeyError.self) {
            try ES256PublicKey(pemRepresentation: try TestKeys.publicPEM(ofPrivatePEM: try TestKeys.ed25519PrivateKeyPEM()))
        }
        #expect(ed?.code == .unsupportedKeyType)
        #expect(ed?.message.contains("ED25519") == true)
    }

    @Test func rejectsPrivateKeyPEMWhereAPublicKeyIsExpected() throws {
        let error = #expect(throws: ES256KeyError.self) {
            try ES256PublicKey(pemRepresentation: try TestKeys.pem("AuthKey_ABC123DEFG.p8"))
        }
        #expect(error?.code == .malformedPEM)
        #expect(error?.message.contains("BEGIN PRIVATE KEY") == true)
    }

    @Test func rejectsJWKsOfOtherTypesAndCurvesNamingThem() {
        let rsa = #expect(throws: ES256KeyError.self) { try ES256PublicKey(jwk: #"{"kty":"RSA","n":"AQAB","e":"AQAB"}"#) }
        #expect(rsa?.code == .unsupportedKeyType)
        #expect(rsa?.message.contains("RSA") == true)
        let p384 = #expect(throws: ES256KeyError.self) {
            try ES256PublicKey(jwk: #"{"kty":"EC","crv":"P-384","x":"AA","y":"AA"}"#)
        }
        #expect(p384?.code == .unsupportedCurve)
        #expect(p384?.message.contains("P-384") == true)
        let okp = #expect(throws: ES256KeyError.self) { try ES256PublicKey(jwk: #"{"kty":"OKP","crv":"Ed25519","x":"AA"}"#) }
        #expect(okp?.code == .unsupportedKeyType)
        #expect(okp?.message.contains("OKP") == true)
    }

    @Test func rejectsMalformedJWKs() throws {
        let good = try TestKeys.apnsPrivateKey().publicKey.jwk()
        let cases: [String] = [
            "[]", "{", #"{"crv":"P-256"}"#, #"{"kty":1}"#,
            #"{"kty":"EC","crv":"P-256","x":"\#(good.x ?? "")"}"#,
            #"{"kty":"EC","crv":"P-256","x":"\#(good.x ?? "")=","y":"\#(good.y ?? "")"}"#,
            #"{"kty":"EC","crv":"P-256","x":"AAAA","y":"\#(good.y ?? "")"}"#,
        ]
        for json in cases {
            let error = #expect(throws: ES256KeyError.self, "\(json)") { try ES256PublicKey(jwk: json) }
            #expect(error?.code == .invalidJWK, "\(json)")
        }
    }

    @Test func rejectsPointsNotOnTheCurve() throws {
        let good = try TestKeys.apnsPrivateKey().publicKey.jwk()
        let yText = try #require(good.y)
        var y = try #require(Base64URL.decode(yText))
        y[31] ^= 1
        let off = JSONWebKey(keyType: "EC", curve: "P-256", x: good.x, y: Base64URL.encode(y))
        let error = #expect(throws: ES256KeyError.self) { try ES256PublicKey(jwk: off) }
        #expect(error?.code == .invalidPublicKey)
        #expect(OpenSSLErrorQueue.isEmpty)
    }

    @Test func wrongLengthSignaturesAreInvalid() throws {
        let key = try TestKeys.apnsPrivateKey()
        let signature = try key.signature(for: [1, 2, 3])
        #expect(key.publicKey.isValidSignature(signature, for: [1, 2, 3]))
        #expect(!key.publicKey.isValidSignature(signature.dropLast(), for: [1, 2, 3]))
        #expect(!key.publicKey.isValidSignature(signature + [0], for: [1, 2, 3]))
        #expect(!key.publicKey.isValidSignature([UInt8](), for: [1, 2, 3]))
    }
}
