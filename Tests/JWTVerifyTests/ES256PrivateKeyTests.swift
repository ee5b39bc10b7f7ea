import Foundation
import Testing

@testable import JWTVerify
import OpenSSLSupport

@Suite struct ES256PrivateKeyTests {
    @Test func loadsApplePKCS8KeysAndServerKey() throws {
        for name in ["AuthKey_ABC123DEFG.p8", "AuthKey_XYZ987WXYZ.p8", "server.key"] {
            let key = try ES256PrivateKey(contentsOfFile: TestSupport.certificate(name))
            let signature = try key.signature(for: Array("hello".utf8))
            #expect(signature.count == 64)
            #expect(key.publicKey.isValidSignature(signature, for: Array("hello".utf8)))
            #expect(!key.publicKey.isValidSignature(signature, for: Array("hellO".utf8)))
        }
    }

    @Test func loadsSEC1KeyAsTheSameKey() throws {
        let sec1 = try TestKeys.sec1PrivateKeyPEM()
        #expect(sec1.contains("BEGIN EC PRIVATE KEY"))
        let fromSEC1 = try ES256PrivateKey(pemRepresentation: sec1)
        let fromPKCS8 = try TestKeys.apnsPrivateKey()
        #expect(fromSEC1.publicKey.jwk() == fromPKCS8.publicKey.jwk())
        let signature = try fromSEC1.signature(for: Array("m".utf8))
        #expect(fromPKCS8.publicKey.isValidSignature(signature, for: Array("m".utf8)))
    }

    @Test func signaturesAreRandomizedAndVerify() throws {
        let key = try TestKeys.apnsPrivateKey()
        let first = try key.signature(for: Array("same".utf8))
        let second = try key.signature(for: Array("same".utf8))
        #expect(first != second)
        #expect(key.publicKey.isValidSignature(second, for: Array("same".utf8)))
    }

    @Test func rejectsOtherCurveNamingIt() throws {
        let error = #expect(throws: ES256KeyError.self) {
            try ES256PrivateKey(pemRepresentation: try TestKeys.p384PrivateKeyPEM())
        }
        #expect(error?.code == .unsupportedCurve)
        #expect(error?.message.contains("secp384r1") == true)
    }

    @Test func rejectsRSAAndEd25519NamingThem() throws {
        let rsa = #expect(throws: ES256KeyError.self) {
            try ES256PrivateKey(pemRepresentation: try TestKeys.rsaPrivateKeyPEM())
        }
        #expect(rsa?.code == .unsupportedKeyType)
        #expect(rsa?.message.contains("RSA") == true)
        let ed = #expect(throws: ES256KeyError.self) {
            try ES256PrivateKey(pemRepresentation: try TestKeys.ed25519PrivateKeyPEM())
        }
        #expect(ed?.code == .unsupportedKeyType)
        #expect(ed?.message.contains("ED25519") == true)
    }

    @Test func rejectsEncryptedKeysWithoutPrompting() throws {
        let encrypted = try TestSupport.openssl([
            "pkcs8", "-topk8", "-in", TestSupport.certificate("AuthKey_ABC123DEFG.p8"), "-v2", "aes-256-cbc",
            "-passout", "pass:secret",
        ])
        let error = #expect(throws: ES256KeyError.self) { try ES256PrivateKey(pemRepresentation: encrypted) }
        #expect(error?.code == .malformedPEM)
        #expect(error?.message.contains("encrypted") == true)
    }

    @Test func rejectsMalformedPEMAndDrainsTheErrorQueue() throws {
        let broken = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"
        let error = #expect(throws: ES256KeyError.self) { try ES256PrivateKey(pemRepresentation: broken) }
        #expect(error?.code == .malformedPEM)
        #expect(error?.openSSLErrors.isEmpty == false)
        #expect(OpenSSLErrorQueue.isEmpty)

        let none = #expect(throws: ES256KeyError.self) { try ES256PrivateKey(pemRepresentation: "not a key") }
        #expect(none?.code == .malformedPEM)
        let publicInstead = #expect(throws: ES256KeyError.self) {
            try ES256PrivateKey(pemRepresentation: try TestKeys.pem("AuthKey_ABC123DEFG.pub.pem"))
        }
        #expect(publicInstead?.message.contains("BEGIN PUBLIC KEY") == true)
    }

    @Test func missingFileNamesThePath() {
        let error = #expect(throws: ES256KeyError.self) {
            try ES256PrivateKey(contentsOfFile: "/nonexistent/AuthKey_NOPE.p8")
        }
        #expect(error?.code == .unreadableFile)
        #expect(error?.message.contains("/nonexistent/AuthKey_NOPE.p8") == true)
    }

    @Test func neverShowsKeyMaterial() throws {
        let pem = try TestKeys.pem("AuthKey_ABC123DEFG.p8")
        let key = try ES256PrivateKey(pemRepresentation: pem)
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }
        let privateScalarHex = try privateScalar(of: "AuthKey_ABC123DEFG.p8")
        let jwk = key.publicKey.jwk()
        var dumped = ""
        dump(key, to: &dumped)
        let signer = JWTSigner(key: key, keyID: TestKeys.keyID)
        let texts = [
            key.description, key.debugDescription, String(describing: key), String(reflecting: key), "\(key)", dumped,
            signer.description, "\(signer)", key.publicKey.description, String(reflecting: key.publicKey),
            jwk.description, String(reflecting: jwk),
        ]
        for text in texts {
            for line in body { #expect(!text.contains(line), "PEM body leaked into \(text)") }
            #expect(!text.lowercased().contains(privateScalarHex), "private scalar leaked into \(text)")
            #expect(!text.contains(try #require(jwk.x)), "public x leaked into \(text)")
            #expect(!text.contains(try #require(jwk.y)), "public y leaked into \(text)")
        }
        #expect(key.description == "ES256PrivateKey(P-256, redacted)")
    }

    /// The private scalar as hex, read independently with the openssl CLI.
    private func privateScalar(of name: String) throws -> String {
        let text = try TestSupport.openssl(["ec", "-in", TestSupport.certificate(name), "-noout", "-text"])
        let lines = text.split(separator: "\n")
        guard let start = lines.firstIndex(where: { $0.hasPrefix("priv:") }) else { return "<none>" }
        let hex = lines[(start + 1)...].prefix { $0.hasPrefix(" ") }.joined()
            .replacingOccurrences(of: " ", with: "").replacingOccurrences(of: ":", with: "")
        let trimmed = hex.hasPrefix("00") ? String(hex.dropFirst(2)) : hex
        #expect(trimmed.count == 64)
        return trimmed
    }
}
