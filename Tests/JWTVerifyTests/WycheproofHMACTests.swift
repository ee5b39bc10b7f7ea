import Foundation
import Testing

@testable import JWTVerify

/// Every HMAC-SHA-256 vector, including the groups with 128-bit truncated tags.
@Suite struct WycheproofHMACTests {
    struct File: Decodable {
        let numberOfTests: Int
        let testGroups: [Group]
    }

    struct Group: Decodable {
        let keySize: Int
        let tagSize: Int
        let tests: [Case]
    }

    struct Case: Decodable {
        let tcId: Int
        let comment: String
        let key: String
        let msg: String
        let tag: String
        let result: String
    }

    @Test func everyVectorAgreesWithItsExpectedResult() throws {
        let data = try TestSupport.wycheproofFile("hmac_sha256_test.json")
        let file = try JSONDecoder().decode(File.self, from: data)
        #expect(file.numberOfTests == 174)

        var checked = 0
        var truncated = 0
        for group in file.testGroups {
            let tagBytes = group.tagSize / 8
            for test in group.tests {
                let key = [UInt8](hex: test.key)
                let message = [UInt8](hex: test.msg)
                let tag = [UInt8](hex: test.tag)
                let accepted = HMACSHA256.isValidAuthenticationCode(tag, for: message, using: key, byteCount: tagBytes)
                switch test.result {
                case "valid":
                    #expect(accepted, "tcId \(test.tcId) (\(test.comment)) should be accepted")
                    let full = try HMACSHA256.authenticationCode(for: message, using: key)
                    #expect(Array(full.prefix(tagBytes)) == tag, "tcId \(test.tcId): computed tag differs")
                case "invalid":
                    #expect(!accepted, "tcId \(test.tcId) (\(test.comment)) should be rejected")
                case "acceptable":
                    break  // Either answer is allowed.
                default:
                    Issue.record("tcId \(test.tcId): unknown result \(test.result)")
                }
                if tagBytes < HMACSHA256.byteCount { truncated += 1 }
                checked += 1
            }
        }
        #expect(checked == 174)
        #expect(truncated == 87)
    }

    @Test func emptyKeyMatchesRFC4231StyleReference() throws {
        // HMAC-SHA256 with an empty key and empty message, as computed by Python's hmac module.
        let tag = try HMACSHA256.authenticationCode(for: [], using: [])
        #expect(tag.hexString == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    @Test func tagOfWrongLengthOrTooShortTruncationIsRejected() throws {
        let key = Array("key".utf8)
        let message = Array("The quick brown fox jumps over the lazy dog".utf8)
        let full = try HMACSHA256.authenticationCode(for: message, using: key)
        #expect(full.hexString == "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8")
        #expect(HMACSHA256.isValidAuthenticationCode(full, for: message, using: key))
        #expect(!HMACSHA256.isValidAuthenticationCode(full.prefix(16), for: message, using: key))
        #expect(HMACSHA256.isValidAuthenticationCode(full.prefix(16), for: message, using: key, byteCount: 16))
        #expect(!HMACSHA256.isValidAuthenticationCode(full.prefix(8), for: message, using: key, byteCount: 8))
    }
}
