import Foundation
import Testing

@testable import JWTVerify
import OpenSSLSupport

/// Every ECDSA P-256/SHA-256 vector in IEEE P1363 (raw r||s) form.
@Suite struct WycheproofECDSATests {
    struct File: Decodable {
        let numberOfTests: Int
        let testGroups: [Group]
    }

    struct Group: Decodable {
        let publicKeyPem: String
        let publicKeyJwk: JWK?
        let tests: [Case]
    }

    struct JWK: Decodable {
        let kty: String
        let crv: String
        let x: String
        let y: String
    }

    struct Case: Decodable {
        let tcId: Int
        let comment: String
        let msg: String
        let sig: String
        let result: String
    }

    @Test func everyVectorAgreesWithItsExpectedResult() throws {
        let data = try TestSupport.wycheproofFile("ecdsa_secp256r1_sha256_p1363_test.json")
        let file = try JSONDecoder().decode(File.self, from: data)
        #expect(file.numberOfTests == 262)

        var checked = 0
        var validAccepted = 0
        var invalidRejected = 0
        var jwkChecked = 0
        for group in file.testGroups {
            let pemKey = try ES256PublicKey(pemRepresentation: group.publicKeyPem)
            // A few groups have no JWK form; those check the PEM key alone.
            let jwkKey = try group.publicKeyJwk.map {
                try ES256PublicKey(jwk: JSONWebKey(keyType: $0.kty, curve: $0.crv, x: $0.x, y: $0.y))
            }
            for test in group.tests {
                let message = [UInt8](hex: test.msg)
                let signature = [UInt8](hex: test.sig)
                let viaPEM = pemKey.isValidSignature(signature, for: message)
                if let jwkKey {
                    #expect(jwkKey.isValidSignature(signature, for: message) == viaPEM, "tcId \(test.tcId): PEM and JWK keys disagree")
                    jwkChecked += 1
                }
                switch test.result {
                case "valid":
                    #expect(viaPEM, "tcId \(test.tcId) (\(test.comment)) should verify")
                    if viaPEM { validAccepted += 1 }
                case "invalid":
                    #expect(!viaPEM, "tcId \(test.tcId) (\(test.comment)) should be rejected")
                    if !viaPEM { invalidRejected += 1 }
                case "acceptable":
                    break
                default:
                    Issue.record("tcId \(test.tcId): unknown result \(test.result)")
                }
                #expect(OpenSSLErrorQueue.isEmpty, "tcId \(test.tcId) left the OpenSSL error queue dirty")
                checked += 1
            }
        }
        #expect(checked == 262)
        #expect(validAccepted == 173)
        #expect(invalidRejected == 89)
        #expect(jwkChecked > 200)
    }
}
