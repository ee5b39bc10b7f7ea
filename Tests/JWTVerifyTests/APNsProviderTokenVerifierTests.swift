import Foundation
import Testing

@testable import JWTVerify

/// The APNs provider-token rules, one APNs reason at a time.
@Suite struct APNsProviderTokenVerifierTests {
    static let start = 1_795_958_793.0
    let clock = TestClock(start)
    let key: ES256PrivateKey
    let otherKey: ES256PrivateKey
    let signer: JWTSigner

    init() throws {
        key = try TestKeys.apnsPrivateKey()
        otherKey = try TestKeys.otherPrivateKey()
        signer = JWTSigner(key: key, keyID: TestKeys.keyID)
    }

    func makeVerifier(
        scope: APNsKeyEnvironmentScope = .both,
        otherKey other: APNsRegisteredKey? = nil
    ) -> APNsProviderTokenVerifier {
        var keys = [TestKeys.keyID: APNsRegisteredKey(publicKey: key.publicKey, teamID: TestKeys.teamID, environments: scope)]
        keys[TestKeys.otherKeyID] = other
        return APNsProviderTokenVerifier(keys: keys, now: clock.now)
    }

    func token(at seconds: Double? = nil, signer: JWTSigner? = nil, team: String = TestKeys.teamID) throws -> String {
        try (signer ?? self.signer).makeProviderToken(teamID: team, issuedAt: Date(timeIntervalSince1970: seconds ?? clock.seconds))
    }

    func expectReason(
        _ reason: String,
        _ body: () throws(APNsProviderTokenError) -> APNsProviderTokenAcceptance,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            let accepted = try body()
            Issue.record("expected \(reason), but the token was accepted for team \(accepted.teamID)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.reason == reason, "\(error.message)", sourceLocation: sourceLocation)
        }
    }

    // MARK: Accepted

    @Test func acceptsAGoodTokenAndBindsTheConnection() throws {
        let verifier = makeVerifier()
        var connection = APNsConnectionTokenState(environment: .production)
        #expect(connection.teamID == nil)
        let accepted = try verifier.verify(authorization: "bearer \(try token())", connection: &connection)
        #expect(accepted.teamID == TestKeys.teamID)
        #expect(accepted.keyID == TestKeys.keyID)
        #expect(accepted.issuedAt == Date(timeIntervalSince1970: Self.start))
        #expect(accepted.lintWarnings.isEmpty)
        #expect(!accepted.wasCached)
        #expect(accepted.header.fields == ["alg": "ES256", "kid": "ABC123DEFG"])
        #expect(accepted.claims.fields == ["iss": "DEF123GHIJ", "iat": 1_795_958_793])
        #expect(connection.teamID == TestKeys.teamID)
        #expect(connection.keyID == TestKeys.keyID)
        #expect(connection.currentTokenAcceptedAt == Date(timeIntervalSince1970: Self.start))
    }

    @Test func acceptsTheSchemeInAnyCaseAndExtraSpaces() throws {
        let verifier = makeVerifier()
        let token = try token()
        for header in ["bearer \(token)", "Bearer \(token)", "BEARER \(token)", "bEaReR  \(token)", " bearer\t\(token) "] {
            var connection = APNsConnectionTokenState(environment: .sandbox)
            #expect(try verifier.verify(authorization: header, connection: &connection).keyID == TestKeys.keyID, "\(header)")
        }
    }

    // MARK: MissingProviderToken

    @Test func missingOrEmptyAuthorizationIsMissingProviderToken() {
        let verifier = makeVerifier()
        for header in [nil, "", "   ", "bearer", "Bearer ", "bearer \t "] as [String?] {
            var connection = APNsConnectionTokenState(environment: .production)
            expectReason("MissingProviderToken") { () throws(APNsProviderTokenError) in
                try verifier.verify(authorization: header, connection: &connection)
            }
            #expect(connection.teamID == nil)
        }
        var connection = APNsConnectionTokenState(environment: .production)
        expectReason("MissingProviderToken") { () throws(APNsProviderTokenError) in
            try verifier.verify(token: "", connection: &connection)
        }
    }

    // MARK: InvalidProviderToken

    @Test func otherSchemesAndGarbageAreInvalidProviderToken() throws {
        let verifier = makeVerifier()
        let token = try token()
        for header in ["Basic \(token)", "bearer\(token)", "bearerx \(token)", token, "bearer a.b", "bearer \(token) x"] {
            var connection = APNsConnectionTokenState(environment: .production)
            expectReason("InvalidProviderToken") { () throws(APNsProviderTokenError) in
                try verifier.verify(authorization: header, connection: &connection)
            }
        }
    }

    @Test func badSignatureUnknownKidAndWrongIssuerAreInvalidProviderToken() throws {
        let verifier = makeVerifier()
        var connection = APNsConnectionTokenState(environment: .production)
        // Signed by another key under this kid.
        let forged = try token(signer: JWTSigner(key: otherKey, keyID: TestKeys.keyID))
        expectReason("InvalidProviderToken") { () throws(APNsProviderTokenError) in try verifier.verify(token: forged, connection: &connection) }
        // A kid nobody registered.
        let unknown = try token(signer: JWTSigner(key: otherKey, keyID: TestKeys.otherKeyID))
        expectReason("InvalidProviderToken") { () throws(APNsProviderTokenError) in try verifier.verify(token: unknown, connection: &connection) }
        // iss is not the key's team.
        let wrongTeam = try token(team: TestKeys.otherTeamID)
        expectReason("InvalidProviderToken") { () throws(APNsProviderTokenError) in try verifier.verify(token: wrongTeam, connection: &connection) }
        #expect(connection.teamID == nil)
    }

    @Test(arguments: [
        (#"{"alg":"ES256","kid":"ABC123DEFG"}"#, #"{"iat":1795958793}"#),
        (#"{"alg":"ES256","kid":"ABC123DEFG"}"#, #"{"iss":"DEF123GHIJ"}"#),
        (#"{"alg":"ES256","kid":"ABC123DEFG"}"#, #"{"iss":7,"iat":1795958793}"#),
        (#"{"alg":"ES256","kid":"ABC123DEFG"}"#, #"{"iss":"DEF123GHIJ","iat":true}"#),
        (#"{"alg":"ES256","kid":"ABC123DEFG"}"#, #"{"iss":"DEF123GHIJ","iat":"soon"}"#),
        (#"{"alg":"ES256","kid":"ABC123DEFG"}"#, #"{"iss":"DEF123GHIJ","iat":"-1795958793"}"#),
        (#"{"alg":"ES256","kid":"ABC123DEFG"}"#, #"{"iss":"DEF123GHIJ","iat":"1e9"}"#),
        (#"{"alg":"ES256","kid":"ABC123DEFG"}"#, #"{"iss":"DEF123GHIJ","iat":null}"#),
        (#"{"alg":"ES256"}"#, #"{"iss":"DEF123GHIJ","iat":1795958793}"#),
        (#"{"alg":"HS256","kid":"ABC123DEFG"}"#, #"{"iss":"DEF123GHIJ","iat":1795958793}"#),
        (#"{"alg":"none","kid":"ABC123DEFG"}"#, #"{"iss":"DEF123GHIJ","iat":1795958793}"#),
        (#"{"kid":"ABC123DEFG"}"#, #"{"iss":"DEF123GHIJ","iat":1795958793}"#),
        (#"["ES256"]"#, #"{"iss":"DEF123GHIJ","iat":1795958793}"#),
    ])
    func missingOrMalformedClaimsAndHeadersAreInvalidProviderToken(header: String, claims: String) throws {
        let verifier = makeVerifier()
        var connection = APNsConnectionTokenState(environment: .production)
        let token = try TestKeys.mint(headerJSON: header, claimsJSON: claims, key: key)
        expectReason("InvalidProviderToken") { () throws(APNsProviderTokenError) in try verifier.verify(token: token, connection: &connection) }
    }

    @Test func everySingleByteChangeIsInvalidProviderToken() throws {
        let verifier = makeVerifier()
        let token = try token()
        var bytes = Array(token.utf8)
        var connection = APNsConnectionTokenState(environment: .production)
        _ = try verifier.verify(token: token, connection: &connection)
        var checked = 0
        for position in bytes.indices {
            let original = bytes[position]
            for replacement in [original ^ 0x01, original ^ 0x20] {
                bytes[position] = replacement
                let mutated = String(decoding: bytes, as: UTF8.self)
                var fresh = APNsConnectionTokenState(environment: .production)
                expectReason("InvalidProviderToken") { () throws(APNsProviderTokenError) in
                    try verifier.verify(authorization: "bearer \(mutated)", connection: &fresh)
                }
                checked += 1
            }
            bytes[position] = original
        }
        #expect(checked == 2 * token.utf8.count)
        // The original is still accepted (and now cached): the mutations did not disturb it.
        #expect(try verifier.verify(token: token, connection: &connection).wasCached)
    }

    // MARK: ExpiredProviderToken

    @Test func iatMoreThanOneHourOldIsExpired() throws {
        let verifier = makeVerifier()
        var connection = APNsConnectionTokenState(environment: .production)
        let exactlyOneHour = try token(at: clock.seconds - 3600)
        #expect(try verifier.verify(token: exactlyOneHour, connection: &connection).teamID == TestKeys.teamID)
        let older = try token(at: clock.seconds - 3601)
        var fresh = APNsConnectionTokenState(environment: .production)
        expectReason("ExpiredProviderToken") { () throws(APNsProviderTokenError) in try verifier.verify(token: older, connection: &fresh) }
        #expect(fresh.teamID == nil)
    }

    @Test func aCachedTokenStillExpiresByItsIat() throws {
        let verifier = makeVerifier()
        var connection = APNsConnectionTokenState(environment: .production)
        let token = try token()
        #expect(try !verifier.verify(token: token, connection: &connection).wasCached)
        clock.advance(by: 3000)
        #expect(try verifier.verify(token: token, connection: &connection).wasCached)
        clock.advance(by: 601)
        expectReason("ExpiredProviderToken") { () throws(APNsProviderTokenError) in try verifier.verify(token: token, connection: &connection) }
    }

    // MARK: Future iat

    @Test func iatSlightlyInTheFutureIsAcceptedWithALintWarning() throws {
        let verifier = makeVerifier()
        var connection = APNsConnectionTokenState(environment: .production)
        let early = try token(at: clock.seconds + 60)
        let accepted = try verifier.verify(token: early, connection: &connection)
        #expect(accepted.lintWarnings.map(\.kind) == [.issuedAtInFuture])
        #expect(accepted.lintWarnings.first?.message.contains("60 s") == true)
        // Once the clock catches up, the same (cached) token has no warning.
        clock.advance(by: 60)
        let later = try verifier.verify(token: early, connection: &connection)
        #expect(later.wasCached)
        #expect(later.lintWarnings.isEmpty)
    }

    @Test func aTokenMintedThisSecondIsNotFromTheFutureWhenTheClockTrailsByMilliseconds() throws {
        let verifier = makeVerifier()
        var connection = APNsConnectionTokenState(environment: .production)
        // Minted at a whole second; the verifier's coarse clock still reads a few ms before it.
        let now = try token(at: clock.seconds.rounded(.up))
        clock.advance(by: clock.seconds.rounded(.up) - clock.seconds - 0.004)
        #expect(try verifier.verify(token: now, connection: &connection).lintWarnings.isEmpty)
    }

    @Test func iatFurtherInTheFutureIsInvalid() throws {
        let verifier = makeVerifier()
        var connection = APNsConnectionTokenState(environment: .production)
        let early = try token(at: clock.seconds + 61)
        expectReason("InvalidProviderToken") { () throws(APNsProviderTokenError) in try verifier.verify(token: early, connection: &connection) }
        clock.advance(by: 1)
        #expect(try verifier.verify(token: early, connection: &connection).lintWarnings.map(\.kind) == [.issuedAtInFuture])
    }

    @Test func millisecondIatIsInvalidWithAHint() throws {
        let verifier = makeVerifier()
        var connection = APNsConnectionTokenState(environment: .production)
        let milliseconds = try TestKeys.mint(
            headerJSON: #"{"alg":"ES256","kid":"ABC123DEFG"}"#,
            claimsJSON: #"{"iss":"DEF123GHIJ","iat":"1795958793000"}"#, key: key)
        do {
            _ = try verifier.verify(token: milliseconds, connection: &connection)
            Issue.record("a millisecond iat was accepted")
        } catch {
            #expect(error.reason == "InvalidProviderToken")
            #expect(error.message.contains("milliseconds"))
        }
    }

    /// A client controls `iat`: one 10^20 s ahead (20 digits, as a string or a number) is
    /// refused with a message, and the message is made without converting it to `Int`,
    /// which would trap.
    @Test(arguments: [#""99999999999999999999""#, "99999999999999999999", "1e300", "9223372036854775807"])
    func iatFarBeyondIntIsInvalidNotATrap(iat: String) throws {
        let verifier = makeVerifier()
        var connection = APNsConnectionTokenState(environment: .production)
        let far = try TestKeys.mint(
            headerJSON: #"{"alg":"ES256","kid":"ABC123DEFG"}"#, claimsJSON: #"{"iss":"DEF123GHIJ","iat":"# + iat + "}", key: key)
        do {
            _ = try verifier.verify(token: far, connection: &connection)
            Issue.record("iat \(iat) was accepted")
        } catch {
            #expect(error.reason == "InvalidProviderToken", "\(error.message)")
        }
    }

    /// With a tolerance that allows it, a far-future `iat` is accepted and its warning says by
    /// how much without trapping.
    @Test func aHugeToleratedFutureIatWarnsInFloatingPointNotation() throws {
        let keys = [TestKeys.keyID: APNsRegisteredKey(publicKey: key.publicKey, teamID: TestKeys.teamID)]
        var configuration = APNsProviderTokenVerifier.Configuration.makeDefault()
        configuration.futureIssuedAtTolerance = .infinity
        let verifier = APNsProviderTokenVerifier(keys: keys, configuration: configuration, now: clock.now)
        var connection = APNsConnectionTokenState(environment: .production)
        let far = try TestKeys.mint(
            headerJSON: #"{"alg":"ES256","kid":"ABC123DEFG"}"#, claimsJSON: #"{"iss":"DEF123GHIJ","iat":"99999999999999999999"}"#, key: key)
        let accepted = try verifier.verify(token: far, connection: &connection)
        #expect(accepted.lintWarnings.map(\.message).contains { $0.hasPrefix("iat is 9.99") && $0.contains("e+19 s ahead") }, "\(accepted.lintWarnings)")
        #expect(SecondsText.roundedUp(59.2) == "60")
        #expect(SecondsText.roundedUp(-.infinity) == "-inf")
    }

    /// Replacing the keys (a new verifier) re-verifies the token a connection already
    /// carries: a removed key or a narrowed scope is refused at once, and the same keys
    /// accept it again without counting a token change.
    @Test func aConnectionsTokenIsVerifiedAgainstReplacedKeys() throws {
        var connection = APNsConnectionTokenState(environment: .sandbox)
        let current = try token()
        _ = try makeVerifier().verify(token: current, connection: &connection)

        let same = APNsProviderTokenVerifier(
            keys: [TestKeys.keyID: APNsRegisteredKey(publicKey: key.publicKey, teamID: TestKeys.teamID)], now: clock.now)
        #expect(!(try same.verify(token: current, connection: &connection)).wasCached)
        #expect(try same.verify(token: current, connection: &connection).wasCached)

        var removed = connection
        expectReason("InvalidProviderToken") { () throws(APNsProviderTokenError) in
            try APNsProviderTokenVerifier(keys: [:], now: clock.now).verify(token: current, connection: &removed)
        }
        var narrowed = connection
        expectReason("BadEnvironmentKeyIdInToken") { () throws(APNsProviderTokenError) in
            try makeVerifier(scope: .production).verify(token: current, connection: &narrowed)
        }
    }

    // MARK: Leniency

    @Test(arguments: [
        (#"{"iss":"DEF123GHIJ","iat":"1795958793"}"#, APNsTokenLintWarning.Kind.issuedAtIsString),
        (#"{"iss":"DEF123GHIJ","iat":1795958793.0}"#, .issuedAtIsFractional),
        (#"{"iss":"DEF123GHIJ","iat":1795958792.75}"#, .issuedAtIsFractional),
        (#"{"iss":"DEF123GHIJ","iat":"1795958792.5"}"#, .issuedAtIsString),
        (#"{"iss":"DEF123GHIJ","iat":1795958793,"exp":1795962393}"#, .unexpectedClaim),
    ])
    func oddButToleratedClaimsAreAcceptedWithALintWarning(claims: String, warning: APNsTokenLintWarning.Kind) throws {
        let verifier = makeVerifier()
        var connection = APNsConnectionTokenState(environment: .production)
        let token = try TestKeys.mint(headerJSON: #"{"alg":"ES256","kid":"ABC123DEFG"}"#, claimsJSON: claims, key: key)
        let accepted = try verifier.verify(token: token, connection: &connection)
        #expect(accepted.lintWarnings.map(\.kind) == [warning])
        #expect(accepted.lintWarnings.allSatisfy { !$0.message.isEmpty })
        #expect(abs(accepted.issuedAt.timeIntervalSince1970 - Self.start) < 1)
    }

    @Test func typAndExtraHeaderMembersAreAcceptedWithLintWarnings() throws {
        let verifier = makeVerifier()
        var connection = APNsConnectionTokenState(environment: .production)
        let token = try TestKeys.mint(
            headerJSON: #"{"alg":"ES256","kid":"ABC123DEFG","typ":"JWT","x5u":"https://example.com"}"#,
            claimsJSON: #"{"iss":"DEF123GHIJ","iat":1795958793}"#, key: key)
        let accepted = try verifier.verify(token: token, connection: &connection)
        #expect(accepted.lintWarnings.map(\.kind) == [.typeHeaderPresent, .unexpectedHeaderField])
        #expect(accepted.lintWarnings[1].message.contains("x5u"))
        #expect(accepted.header.type == "JWT")
    }

    // MARK: TooManyProviderTokenUpdates

    @Test func aDifferentTokenWithinTwentyMinutesIsTooManyUpdates() throws {
        let verifier = makeVerifier()
        var connection = APNsConnectionTokenState(environment: .production)
        let first = try token()
        _ = try verifier.verify(token: first, connection: &connection)

        clock.advance(by: 600)
        let second = try token()
        expectReason("TooManyProviderTokenUpdates") { () throws(APNsProviderTokenError) in try verifier.verify(token: second, connection: &connection) }
        // The rejected token did not take effect: the first one still works.
        #expect(try verifier.verify(token: first, connection: &connection).wasCached)

        clock.advance(by: 599)
        expectReason("TooManyProviderTokenUpdates") { () throws(APNsProviderTokenError) in try verifier.verify(token: second, connection: &connection) }
        clock.advance(by: 1)
        #expect(try verifier.verify(token: second, connection: &connection).teamID == TestKeys.teamID)
        #expect(connection.currentTokenAcceptedAt == Date(timeIntervalSince1970: Self.start + 1200))

        // Going back to the first token is also a change.
        clock.advance(by: 60)
        expectReason("TooManyProviderTokenUpdates") { () throws(APNsProviderTokenError) in try verifier.verify(token: first, connection: &connection) }
    }

    /// A pool shares one token across its connections and mints the next after 50 minutes:
    /// a connection opened at minute 49 must take it, or it is refused until its old token
    /// expires and then has no token APNs accepts for 10 more minutes.
    @Test func aTokenMintedTwentyMinutesAfterTheOneInForceIsARefreshAtOnce() throws {
        let verifier = makeVerifier()
        var connection = APNsConnectionTokenState(environment: .production)
        let shared = try token(at: Self.start - 49 * 60)
        _ = try verifier.verify(token: shared, connection: &connection)

        clock.advance(by: 60)
        let next = try token()
        #expect(try verifier.verify(token: next, connection: &connection).issuedAt == Date(timeIntervalSince1970: Self.start + 60))
        #expect(connection.currentTokenAcceptedAt == Date(timeIntervalSince1970: Self.start + 60))

        // Minted a minute after the one now in force, and sent a minute after it took effect.
        clock.advance(by: 60)
        let third = try token()
        expectReason("TooManyProviderTokenUpdates") { () throws(APNsProviderTokenError) in try verifier.verify(token: third, connection: &connection) }
        // Going back to the shared token: minted 50 minutes apart, so that is allowed too.
        #expect(try verifier.verify(token: shared, connection: &connection).wasCached)
    }

    @Test func theSameTokenMayBeReusedOnManyConnections() throws {
        let verifier = makeVerifier()
        let token = try token()
        for _ in 0..<3 {
            var connection = APNsConnectionTokenState(environment: .production)
            _ = try verifier.verify(token: token, connection: &connection)
            _ = try verifier.verify(token: token, connection: &connection)
        }
        #expect(verifier.cachedTokenCount == 1)
    }

    // MARK: UnrelatedKeyIdInToken

    @Test func anotherTeamsKeyOnABoundConnectionIsUnrelated() throws {
        let verifier = makeVerifier(
            otherKey: APNsRegisteredKey(publicKey: otherKey.publicKey, teamID: TestKeys.otherTeamID))
        var connection = APNsConnectionTokenState(environment: .production)
        _ = try verifier.verify(token: try token(), connection: &connection)
        clock.advance(by: 1800)
        let otherTeam = try token(signer: JWTSigner(key: otherKey, keyID: TestKeys.otherKeyID), team: TestKeys.otherTeamID)
        expectReason("UnrelatedKeyIdInToken") { () throws(APNsProviderTokenError) in try verifier.verify(token: otherTeam, connection: &connection) }
        #expect(connection.teamID == TestKeys.teamID)
        // On its own connection the other team's token is fine.
        var own = APNsConnectionTokenState(environment: .production)
        #expect(try verifier.verify(token: otherTeam, connection: &own).teamID == TestKeys.otherTeamID)
    }

    @Test func aSecondKeyOfTheSameTeamIsRelated() throws {
        let verifier = makeVerifier(otherKey: APNsRegisteredKey(publicKey: otherKey.publicKey, teamID: TestKeys.teamID))
        var connection = APNsConnectionTokenState(environment: .production)
        _ = try verifier.verify(token: try token(), connection: &connection)
        let rotated = try token(signer: JWTSigner(key: otherKey, keyID: TestKeys.otherKeyID))
        expectReason("TooManyProviderTokenUpdates") { () throws(APNsProviderTokenError) in try verifier.verify(token: rotated, connection: &connection) }
        clock.advance(by: 1200)
        let accepted = try verifier.verify(token: try token(signer: JWTSigner(key: otherKey, keyID: TestKeys.otherKeyID)), connection: &connection)
        #expect(accepted.keyID == TestKeys.otherKeyID)
        #expect(connection.keyID == TestKeys.keyID, "the connection stays bound to its first key")
    }

    @Test func mixingTeamScopedAndTopicSpecificKeysIsUnrelated() throws {
        let verifier = makeVerifier(
            otherKey: APNsRegisteredKey(publicKey: otherKey.publicKey, teamID: TestKeys.teamID, topics: ["com.example.app"]))
        var connection = APNsConnectionTokenState(environment: .production)
        _ = try verifier.verify(token: try token(), topic: "com.example.app", connection: &connection)
        clock.advance(by: 1800)
        let topicToken = try token(signer: JWTSigner(key: otherKey, keyID: TestKeys.otherKeyID))
        expectReason("UnrelatedKeyIdInToken") { () throws(APNsProviderTokenError) in
            try verifier.verify(token: topicToken, topic: "com.example.app", connection: &connection)
        }
    }

    /// A key of the same team and kind whose environment scope differs (an all-environments
    /// key and a sandbox-only one) is another kind of key on the connection, as the digest
    /// has it ("mixing kinds or environments on one connection errors"): unrelated, since a
    /// new connection would take it, not `BadEnvironmentKeyIdInToken`, which says the key
    /// cannot be used in this environment at all.
    @Test(arguments: [
        (APNsKeyEnvironmentScope.both, APNsKeyEnvironmentScope.sandbox, Set<String>?.none),
        (.sandbox, .both, nil),
        (.both, .sandbox, Set(["com.example.app"])),
    ])
    func aSameTeamKeyOfAnotherEnvironmentScopeIsUnrelated(
        first: APNsKeyEnvironmentScope, second: APNsKeyEnvironmentScope, topics: Set<String>?
    ) throws {
        let verifier = APNsProviderTokenVerifier(keys: [
            TestKeys.keyID: APNsRegisteredKey(publicKey: key.publicKey, teamID: TestKeys.teamID, environments: first, topics: topics),
            TestKeys.otherKeyID: APNsRegisteredKey(publicKey: otherKey.publicKey, teamID: TestKeys.teamID, environments: second, topics: topics),
        ], now: clock.now)
        var connection = APNsConnectionTokenState(environment: .sandbox)
        _ = try verifier.verify(token: try token(), topic: "com.example.app", connection: &connection)
        clock.advance(by: 1800)
        let scoped = try token(signer: JWTSigner(key: otherKey, keyID: TestKeys.otherKeyID))

        expectReason("UnrelatedKeyIdInToken") { () throws(APNsProviderTokenError) in
            try verifier.verify(token: scoped, topic: "com.example.app", connection: &connection)
        }
        var own = APNsConnectionTokenState(environment: .sandbox)
        #expect(try verifier.verify(token: scoped, topic: "com.example.app", connection: &own).keyID == TestKeys.otherKeyID)
    }

    // MARK: BadEnvironmentKeyIdInToken

    @Test(arguments: [
        (APNsKeyEnvironmentScope.production, APNsEnvironment.sandbox, false),
        (.sandbox, .production, false),
        (.production, .production, true),
        (.sandbox, .sandbox, true),
        (.both, .production, true),
        (.both, .sandbox, true),
    ])
    func keysScopedToTheOtherEnvironmentAreRejected(scope: APNsKeyEnvironmentScope, environment: APNsEnvironment, allowed: Bool) throws {
        let verifier = makeVerifier(scope: scope)
        var connection = APNsConnectionTokenState(environment: environment)
        let token = try token()
        if allowed {
            #expect(try verifier.verify(token: token, connection: &connection).teamID == TestKeys.teamID)
        } else {
            expectReason("BadEnvironmentKeyIdInToken") { () throws(APNsProviderTokenError) in try verifier.verify(token: token, connection: &connection) }
            #expect(connection.teamID == nil)
        }
    }

    // MARK: Topic-specific keys

    @Test func topicSpecificKeysOnlyPushToTheirTopics() throws {
        let verifier = APNsProviderTokenVerifier(
            keys: [TestKeys.keyID: APNsRegisteredKey(publicKey: key.publicKey, teamID: TestKeys.teamID, topics: ["com.example.app"])],
            now: clock.now)
        let token = try token()
        var connection = APNsConnectionTokenState(environment: .production)
        #expect(try verifier.verify(token: token, topic: "com.example.app", connection: &connection).keyID == TestKeys.keyID)
        expectReason("InvalidProviderToken") { () throws(APNsProviderTokenError) in
            try verifier.verify(token: token, topic: "com.example.other", connection: &connection)
        }
        expectReason("InvalidProviderToken") { () throws(APNsProviderTokenError) in try verifier.verify(token: token, connection: &connection) }
    }

    func verifier(topics: Set<String>?) -> APNsProviderTokenVerifier {
        APNsProviderTokenVerifier(
            keys: [TestKeys.keyID: APNsRegisteredKey(publicKey: key.publicKey, teamID: TestKeys.teamID, topics: topics)], now: clock.now)
    }

    /// A connection is bound to its topics on first use ("a newly added bundle fails until
    /// reconnect"): a topic added to a topic-specific key while the connection is open (the
    /// mock's keys replaced) is refused there, and taken on a new connection. A topic taken
    /// away, or the key itself, is refused at once.
    @Test func aTopicAddedToAKeyWaitsForANewConnection() throws {
        let token = try token()
        var connection = APNsConnectionTokenState(environment: .production)
        _ = try verifier(topics: ["com.example.app"]).verify(token: token, topic: "com.example.app", connection: &connection)

        let widened = verifier(topics: ["com.example.app", "com.example.other"])
        expectReason("InvalidProviderToken") { () throws(APNsProviderTokenError) in
            try widened.verify(token: token, topic: "com.example.other", connection: &connection)
        }
        #expect(try widened.verify(token: token, topic: "com.example.app", connection: &connection).keyID == TestKeys.keyID)
        var fresh = APNsConnectionTokenState(environment: .production)
        #expect(try widened.verify(token: token, topic: "com.example.other", connection: &fresh).keyID == TestKeys.keyID)
        // Made team-scoped: that adds topics too.
        expectReason("InvalidProviderToken") { () throws(APNsProviderTokenError) in
            try verifier(topics: nil).verify(token: token, topic: "com.example.other", connection: &connection)
        }
        #expect(try verifier(topics: nil).verify(token: token, topic: "com.example.app", connection: &connection).teamID == TestKeys.teamID)
        var narrowed = connection
        expectReason("InvalidProviderToken") { () throws(APNsProviderTokenError) in
            try verifier(topics: ["com.example.other"]).verify(token: token, topic: "com.example.app", connection: &narrowed)
        }
    }

    /// A key that was team-scoped when the connection bound covered every topic then: narrowed
    /// later, it is held to its new list at once, and widened again it gets back what it had.
    @Test func aKeyTeamScopedAtBindingIsNotHeldToALaterList() throws {
        let token = try token()
        var connection = APNsConnectionTokenState(environment: .production)
        _ = try verifier(topics: nil).verify(token: token, topic: "com.example.app", connection: &connection)

        let narrowed = verifier(topics: ["com.example.app"])
        #expect(try narrowed.verify(token: token, topic: "com.example.app", connection: &connection).keyID == TestKeys.keyID)
        expectReason("InvalidProviderToken") { () throws(APNsProviderTokenError) in
            try narrowed.verify(token: token, topic: "com.example.other", connection: &connection)
        }
        let widened = verifier(topics: ["com.example.app", "com.example.other"])
        #expect(try widened.verify(token: token, topic: "com.example.other", connection: &connection).keyID == TestKeys.keyID)
    }

    // MARK: Order

    @Test func checksRunInTheDocumentedOrder() throws {
        // Expired beats bad environment; bad environment beats the connection rules.
        let verifier = makeVerifier(scope: .production)
        var sandbox = APNsConnectionTokenState(environment: .sandbox)
        let old = try token(at: clock.seconds - 4000)
        expectReason("ExpiredProviderToken") { () throws(APNsProviderTokenError) in try verifier.verify(token: old, connection: &sandbox) }
        let current = try token()
        expectReason("BadEnvironmentKeyIdInToken") { () throws(APNsProviderTokenError) in try verifier.verify(token: current, connection: &sandbox) }
        // Invalid beats expired.
        let oldForged = try token(at: clock.seconds - 4000, signer: JWTSigner(key: otherKey, keyID: TestKeys.keyID))
        expectReason("InvalidProviderToken") { () throws(APNsProviderTokenError) in try verifier.verify(token: oldForged, connection: &sandbox) }
    }
}
