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

    @Test func rfc4231VectorsHoldForAPreparedKeyUsedTwice() throws {
        // RFC 4231 section 4, HMAC-SHA-256 rows; case 5's tag is truncated to 128 bits.
        let cases: [(key: [UInt8], message: [UInt8], tag: String)] = [
            ([UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8),
             "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
            (Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
             "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
            ([UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50),
             "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
            (Array(1...25), [UInt8](repeating: 0xcd, count: 50),
             "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
            ([UInt8](repeating: 0x0c, count: 20), Array("Test With Truncation".utf8),
             "a3b6167473100ee06e0c796c2955552b"),
            ([UInt8](repeating: 0xaa, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
             "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
            ([UInt8](repeating: 0xaa, count: 131),
             Array(("This is a test using a larger than block-size key and a larger than block-size data. "
                    + "The key needs to be hashed before being used by the HMAC algorithm.").utf8),
             "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
        ]
        for (index, vector) in cases.enumerated() {
            let key = HMACSHA256Key(vector.key)
            let expected = [UInt8](hex: vector.tag)
            for _ in 0..<2 {
                #expect(Array(try key.authenticationCode(for: vector.message).prefix(expected.count)) == expected, "case \(index + 1)")
                #expect(key.isValidAuthenticationCode(expected, for: vector.message, byteCount: expected.count), "case \(index + 1)")
            }
        }
    }

    @Test func keysAroundTheBlockSizeArePaddedOrHashed() throws {
        // Reference tags from Python's hmac module: key bytes 0, 1, ... of each length, message "boundary".
        let expected = [
            63: "5b3b28939f062233edd3b78c7984acc50bdb173013a53a3175a1b667dd4cdae0",
            64: "04660fc313657aa3500078e1f2788cc4e328654092b137f946516e4d7a17adae",
            65: "ea8a9678017bce7c50df43ced20cc4b112ed884969720bb2ec14e24ce582f037",
        ]
        for (length, tag) in expected {
            let key = HMACSHA256Key((0..<length).map { UInt8($0) })
            #expect(try key.authenticationCode(for: Array("boundary".utf8)).hexString == tag, "key of \(length) bytes")
        }
    }

    @Test func emptyKeyAndEmptyMessageInterleaveWithOthers() throws {
        let empty = HMACSHA256Key([UInt8]())
        let fox = HMACSHA256Key(Array("key".utf8))
        for _ in 0..<3 {
            #expect(try empty.authenticationCode(for: [UInt8]()).hexString
                    == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
            #expect(try fox.authenticationCode(for: [UInt8]()).hexString == emptyMessage)
        }
    }

    @Test func checksAcceptOnlyTheRightTagWhateverItsCollection() throws {
        let key = HMACSHA256Key(Array("key".utf8))
        let fox = Array("The quick brown fox jumps over the lazy dog".utf8)
        let tag = [UInt8](hex: quickFox)
        // A lazy collection has no contiguous storage: the copying comparison is used.
        #expect(key.isValidAuthenticationCode(tag.lazy.map { $0 }, for: fox))
        #expect(key.isValidAuthenticationCode(tag[...], for: fox.lazy.map { $0 }))
        #expect(key.isValidAuthenticationCode(tag.prefix(20), for: fox, byteCount: 20))
        for position in [0, 15, 31] {
            var flipped = tag
            flipped[position] ^= 0x01
            #expect(!key.isValidAuthenticationCode(flipped, for: fox), "bit flipped at byte \(position)")
            #expect(!key.isValidAuthenticationCode(flipped.lazy.map { $0 }, for: fox), "bit flipped at byte \(position)")
        }
        #expect(!key.isValidAuthenticationCode([UInt8](), for: fox))
        #expect(!key.isValidAuthenticationCode(tag + [0], for: fox))
        #expect(!key.isValidAuthenticationCode(tag, for: fox, byteCount: 33))
    }

    @Test func concurrentChecksAndTagsAgree() async throws {
        let key = HMACSHA256Key(Array("shared secret".utf8))
        let messages = (0..<32).map { Array("body \($0)".utf8) + [UInt8](repeating: 0x5a, count: $0 * 11) }
        let tags = try messages.map { try key.authenticationCode(for: $0) }
        let wrong = await Self.failuresAcrossWorkers(stride: 7, count: messages.count) { index in
            !key.isValidAuthenticationCode(tags[index], for: messages[index])
                || key.isValidAuthenticationCode(tags[(index + 1) % tags.count], for: messages[index])
        }
        #expect(wrong == 0)
    }

    @Test func concurrentUsersGetTheirOwnMessagesTags() async throws {
        let key = HMACSHA256Key(Array("shared secret".utf8))
        let messages = (0..<64).map { Array("message \($0) ".utf8) + [UInt8](repeating: UInt8($0), count: $0 * 7) }
        let expected = try messages.map { try HMACSHA256.authenticationCode(for: $0, using: Array("shared secret".utf8)) }
        let mismatches = await Self.failuresAcrossWorkers(stride: 17, count: messages.count) { index in
            (try? key.authenticationCode(for: messages[index])) != expected[index]
        }
        #expect(mismatches == 0)
    }

    /// Runs `fails` 200 times on each of 4 concurrent tasks, each task walking the indices
    /// from its own offset, and counts the `true` answers.
    private static func failuresAcrossWorkers(stride: Int, count: Int, _ fails: @escaping @Sendable (Int) -> Bool) async -> Int {
        await withTaskGroup(of: Int.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    (0..<200).filter { round in fails((worker * stride + round) % count) }.count
                }
            }
            return await group.reduce(0, +)
        }
    }
}
