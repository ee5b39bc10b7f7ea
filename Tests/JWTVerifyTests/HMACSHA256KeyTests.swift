import Foundation
import Testing

@testable import JWTVerify

/// A prepared key gives every message the tag a fresh key would, however often and from
/// however many threads it is used.
@Suite struct HMACSHA256KeyTests {
    // Reference tags from Python's hmac module.
    private let quickFox = "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8"  // key "key", the fox sentence
    private let emptyMessage = "5d5d139563c95b5967b9bd9a8c9b233a9dedb45072794cd232dc1b74832607d0"  // key "key", ""

    @Test func reusedKeyRewindsBetweenMessages() throws {
        let key = HMACSHA256Key(Array("key".utf8))
        let fox = Array("The quick brown fox jumps over the lazy dog".utf8)
        for _ in 0..<3 {
            #expect(try key.authenticationCode(for: fox).hexString == quickFox)
            #expect(try key.authenticationCode(for: [UInt8]()).hexString == emptyMessage)
            // A non-contiguous collection takes the copying path.
            #expect(try key.authenticationCode(for: fox.lazy.map { $0 }).hexString == quickFox)
        }
        let tag = try key.authenticationCode(for: fox)
        #expect(key.isValidAuthenticationCode(tag, for: fox))
        #expect(key.isValidAuthenticationCode(tag.prefix(16), for: fox, byteCount: 16))
        #expect(!key.isValidAuthenticationCode(tag.prefix(16), for: fox))
        #expect(!key.isValidAuthenticationCode(tag, for: Array("the quick brown fox".utf8)))
    }

    @Test func keysLongerThanABlockAreHashedFirst() throws {
        // RFC 4231 test case 6: a 131-byte key.
        let key = HMACSHA256Key([UInt8](repeating: 0xaa, count: 131))
        let message = Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)
        #expect(try key.authenticationCode(for: message).hexString
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test func concurrentUsersGetTheirOwnMessagesTags() async throws {
        let key = HMACSHA256Key(Array("shared secret".utf8))
        let messages = (0..<64).map { Array("message \($0) ".utf8) + [UInt8](repeating: UInt8($0), count: $0 * 7) }
        let expected = try messages.map { try HMACSHA256.authenticationCode(for: $0, using: Array("shared secret".utf8)) }
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    var mismatches = 0
                    for round in 0..<200 {
                        let index = (worker * 17 + round) % messages.count
                        if (try? key.authenticationCode(for: messages[index])) != expected[index] { mismatches += 1 }
                    }
                    return mismatches
                }
            }
            return await group.reduce(0, +)
        }
        #expect(mismatches == 0)
    }
}
