import Dispatch
import Foundation
import Synchronization
import Testing

@testable import JWTVerify

@Suite struct VerifiedTokenCacheTests {
    static let now = 1_795_958_793.0

    func makeVerifier(capacity: Int) throws -> (APNsProviderTokenVerifier, JWTSigner) {
        let key = try TestKeys.apnsPrivateKey()
        var configuration = APNsProviderTokenVerifier.Configuration()
        configuration.cacheCapacity = capacity
        let verifier = APNsProviderTokenVerifier(
            keys: [TestKeys.keyID: APNsRegisteredKey(publicKey: key.publicKey, teamID: TestKeys.teamID)],
            configuration: configuration,
            now: { Date(timeIntervalSince1970: Self.now) })
        return (verifier, JWTSigner(key: key, keyID: TestKeys.keyID))
    }

    func tokens(_ count: Int, signer: JWTSigner) throws -> [String] {
        // Distinct iat values make distinct tokens, all still valid at `now`.
        try (0..<count).map { try signer.makeProviderToken(teamID: TestKeys.teamID, issuedAt: Date(timeIntervalSince1970: Self.now - Double($0))) }
    }

    @Test func secondUseIsALookup() throws {
        let (verifier, signer) = try makeVerifier(capacity: 16)
        let token = try tokens(1, signer: signer)[0]
        var connection = APNsConnectionTokenState(environment: .production)
        #expect(try !verifier.verify(token: token, connection: &connection).wasCached)
        #expect(try verifier.verify(token: token, connection: &connection).wasCached)
        #expect(try verifier.verify(authorization: "Bearer \(token)", connection: &connection).wasCached)
        #expect(verifier.cachedTokenCount == 1)
    }

    @Test func sizeStaysBounded() throws {
        let (verifier, signer) = try makeVerifier(capacity: 8)
        for token in try tokens(50, signer: signer) {
            var connection = APNsConnectionTokenState(environment: .production)
            _ = try verifier.verify(token: token, connection: &connection)
            #expect(verifier.cachedTokenCount <= 8)
        }
        #expect(verifier.cachedTokenCount >= 4)
    }

    @Test func tokensInUseSurviveEviction() throws {
        let (verifier, signer) = try makeVerifier(capacity: 8)
        let all = try tokens(41, signer: signer)
        let hot = all[0]
        var first = APNsConnectionTokenState(environment: .production)
        _ = try verifier.verify(token: hot, connection: &first)
        for cold in all.dropFirst() {
            var other = APNsConnectionTokenState(environment: .production)
            _ = try verifier.verify(token: cold, connection: &other)
            // A new connection each time, so the shared cache answers, not the connection.
            var connection = APNsConnectionTokenState(environment: .production)
            #expect(try verifier.verify(token: hot, connection: &connection).wasCached)
        }
        // A cold token from the start has been evicted and is verified again.
        var late = APNsConnectionTokenState(environment: .production)
        #expect(try !verifier.verify(token: all[1], connection: &late).wasCached)
    }

    @Test func theConnectionsOwnTokenIsRecognisedWithoutTheSharedCache() throws {
        let (verifier, signer) = try makeVerifier(capacity: 4)
        let all = try tokens(20, signer: signer)
        var connection = APNsConnectionTokenState(environment: .production)
        _ = try verifier.verify(token: all[0], connection: &connection)
        for other in all.dropFirst() {
            var elsewhere = APNsConnectionTokenState(environment: .production)
            _ = try verifier.verify(token: other, connection: &elsewhere)
        }
        // Evicted from the shared cache by now, yet still no ECDSA verify on its connection.
        var fresh = APNsConnectionTokenState(environment: .production)
        #expect(try verifier.verify(token: all[0], connection: &connection).wasCached)
        #expect(try !verifier.verify(token: all[0], connection: &fresh).wasCached)
    }

    @Test func hashCollisionsNeverReturnAnotherTokensRecord() throws {
        let (verifier, signer) = try makeVerifier(capacity: 8)
        let pair = try tokens(2, signer: signer)
        var connection = APNsConnectionTokenState(environment: .production)
        let accepted = try verifier.verify(token: pair[0], connection: &connection)
        let cache = VerifiedTokenCache(capacity: 8)
        cache.insert(accepted.record, hash: 42)
        // Same hash, different bytes: a miss, not a wrong hit.
        var other = pair[1]
        let found = other.withUTF8 { cache.record(for: $0, hash: 42) }
        #expect(found == nil)
        var same = pair[0]
        let hit = same.withUTF8 { cache.record(for: $0, hash: 42) }
        #expect(hit === accepted.record)
    }

    @Test func isSafeUnderConcurrentUse() throws {
        // Roomy enough that 24 tokens never overflow one 4-way set (odds about 1e-6).
        let (verifier, signer) = try makeVerifier(capacity: 1024)
        let all = try tokens(24, signer: signer)
        let accepted = Atomic<Int>(0)
        let rejected = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<200 {
                var connection = APNsConnectionTokenState(environment: .production)
                let token = all[(worker * 7 + round) % all.count]
                do {
                    let result = try verifier.verify(authorization: "bearer \(token)", connection: &connection)
                    if result.teamID == TestKeys.teamID { accepted.add(1, ordering: .relaxed) }
                } catch {
                    rejected.add(1, ordering: .relaxed)
                }
            }
        }
        #expect(accepted.load(ordering: .relaxed) == 1600)
        #expect(rejected.load(ordering: .relaxed) == 0)
        #expect(verifier.cachedTokenCount == 24)
    }

    @Test func concurrentSigningAndVerifyingShareKeysSafely() throws {
        let key = try TestKeys.apnsPrivateKey()
        let verifier = JWTVerifier(keys: [TestKeys.keyID: key.publicKey])
        let signer = JWTSigner(key: key, keyID: TestKeys.keyID)
        let good = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<25 {
                if let token = try? signer.makeProviderToken(teamID: TestKeys.teamID),
                    (try? verifier.verify(token))?.keyID == TestKeys.keyID
                {
                    good.add(1, ordering: .relaxed)
                }
            }
        }
        #expect(good.load(ordering: .relaxed) == 200)
    }
}
