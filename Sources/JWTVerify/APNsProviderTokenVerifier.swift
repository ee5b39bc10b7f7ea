import Foundation
import StrictJSON

/// Applies APNs provider-token rules to a push: as strict as APNs, and as lenient.
///
/// For each push it takes the `authorization` header, the push's topic and the
/// connection's ``APNsConnectionTokenState``, and either returns an
/// ``APNsProviderTokenAcceptance`` or throws the exact APNs reason. Checks run in this
/// order; the first failure wins:
///
/// 1. Header: absent, empty or `bearer` alone → `MissingProviderToken`. The scheme is
///    case-insensitive; any other scheme → `InvalidProviderToken`.
/// 2. Token (skipped when the exact token is cached): strict JWT checks as in
///    ``JWTVerifier`` with the registered key its `kid` names; `iss` must be the key's
///    team; `iat` must be present. Any failure → `InvalidProviderToken`.
/// 3. Time: `iat` more than ``Configuration/tokenLifetime`` (1 h) old →
///    `ExpiredProviderToken`. See "Future iat" below.
/// 4. Environment: a key scoped to the other environment → `BadEnvironmentKeyIdInToken`.
/// 5. Topic: a topic-specific key used for a topic outside its list →
///    `InvalidProviderToken` (Apple names no reason; this is the mock's choice). On a
///    connection that already accepted the key, the list is the one the key had then,
///    less any topic taken from it since: a connection is bound to its topics on first
///    use, so a topic added to the key (keys replaced while connections are open) is
///    refused there until the client opens a new connection.
/// 6. Connection: once bound, a `kid` of another team, of a different kind of key
///    (team-scoped vs topic-specific) or of a different environment scope (`both` vs
///    one environment), → `UnrelatedKeyIdInToken`. Another key of the same team, kind and
///    scope is related (APNs allows two team keys per environment, for rotation).
/// 7. Rate: a token different from the one in force, whose `iat` is less than
///    ``Configuration/minimumTokenUpdateInterval`` (20 min) from that one's, sent less than
///    20 min after that one took effect on the connection → `TooManyProviderTokenUpdates`
///    (429). Either 20 minutes is enough: tokens minted 20 minutes apart are a refresh
///    even on a connection that first saw the old one a minute ago (a pool sharing one
///    token opens connections late in its hour), and a token held 20 minutes on the
///    connection may be replaced by any other.
///
/// Only an accepted push changes the connection state: the first binds the connection to
/// its team and key, the first of each topic-specific key binds that key's topics, and a
/// new token takes effect at the time it is accepted.
///
/// **Future iat.** Apple does not say. The mock accepts an `iat` up to
/// ``Configuration/futureIssuedAtTolerance`` (60 s) ahead of its clock with an
/// ``APNsTokenLintWarning/Kind/issuedAtInFuture`` warning, because real servers' clocks
/// drift by seconds; further ahead is `InvalidProviderToken`. That catches tokens stamped
/// in milliseconds (as in Apple's own sample), which would otherwise never expire.
///
/// **Leniency.** As real clients need: `iat` may be an integer, a numeric string
/// (`"1795958793"`) or a fractional number; `typ` and other header members and claims
/// may be present. Each such oddity yields a lint warning, never a rejection.
///
/// **Cache.** Verified tokens are cached by their exact text (see
/// ``Configuration/cacheCapacity``); a reused token costs a hash lookup instead of an
/// ECDSA verify, and still expires by its `iat`. The verifier is thread-safe; the
/// connection state is not shared, so each connection's calls must be serialised (as an
/// HTTP/2 connection on one event loop is).
public final class APNsProviderTokenVerifier: Sendable {
    /// Timing rules and cache size. Defaults are APNs' documented values.
    public struct Configuration: Sendable, Hashable {
        /// Seconds after `iat` during which a token is accepted: APNs uses one hour.
        public var tokenLifetime: Double = 3600
        /// The least time, in seconds, between the `iat`s of two tokens one connection uses in
        /// turn, unless the first was in force on it that long: APNs uses 20 minutes.
        public var minimumTokenUpdateInterval: Double = 1200
        /// Seconds by which `iat` may be ahead of the clock (accepted with a lint warning).
        public var futureIssuedAtTolerance: Double = 60
        /// The most verified tokens cached.
        public var cacheCapacity: Int = 10_000

        /// The APNs defaults: 1 h lifetime, 20 min update interval, 60 s skew, 10,000 tokens.
        public init() {}

        /// APNs' documented values; spelled out so callers can see every default.
        public static func makeDefault() -> Configuration { Configuration() }
    }

    /// The registered keys by key ID.
    public let keys: [String: APNsRegisteredKey]
    /// The timing rules and cache size.
    public let configuration: Configuration
    private let now: @Sendable () -> Date
    private let cache: VerifiedTokenCache
    /// Marks the records this verifier made, so a connection's record from before the keys
    /// were replaced is verified again.
    private let keySet = VerifiedTokenRecord.KeySet()

    /// Creates a verifier.
    ///
    /// - Parameters:
    ///   - keys: The registered keys by key ID (the `kid` in tokens).
    ///   - configuration: Timing rules and cache size.
    ///   - now: The clock; tests inject a fixed or stepping time. `nil` uses the system
    ///     wall clock at coarse (millisecond) resolution, which is cheaper to read and
    ///     ample for rules measured in seconds.
    public init(
        keys: [String: APNsRegisteredKey],
        configuration: Configuration = .makeDefault(),
        now: (@Sendable () -> Date)? = nil
    ) {
        self.keys = keys
        self.configuration = configuration
        self.now = now ?? { CoarseWallClock.now() }
        self.cache = VerifiedTokenCache(capacity: configuration.cacheCapacity)
    }

    /// The number of verified tokens currently cached.
    public var cachedTokenCount: Int { cache.count }

    /// Applies the provider-token rules to one push, given its `authorization` header.
    ///
    /// - Parameters:
    ///   - authorization: The raw header value, `bearer <jwt>`, or `nil` if absent.
    ///   - topic: The push's `apns-topic`, checked against topic-specific keys.
    ///   - connection: The state of the connection the push arrived on; updated only when
    ///     the push is accepted.
    /// - Returns: The accepted team, key and token details, with lint warnings.
    /// - Throws: ``APNsProviderTokenError`` carrying the APNs reason and status.
    public func verify(
        authorization: String?,
        topic: String? = nil,
        connection: inout APNsConnectionTokenState
    ) throws(APNsProviderTokenError) -> APNsProviderTokenAcceptance {
        guard let header = authorization else { throw .missingProviderToken }
        let outcome = header.withBorrowedUTF8 { bytes in
            Result { () throws(APNsProviderTokenError) -> APNsProviderTokenAcceptance in
                let token = try Self.bearerToken(in: bytes)
                return try verify(tokenBytes: token, topic: topic, connection: &connection)
            }
        }
        return try outcome.get()
    }

    /// Applies the provider-token rules to one push, given the bare token.
    ///
    /// - Throws: ``APNsProviderTokenError``; an empty token is `MissingProviderToken`.
    public func verify(
        token: String,
        topic: String? = nil,
        connection: inout APNsConnectionTokenState
    ) throws(APNsProviderTokenError) -> APNsProviderTokenAcceptance {
        let outcome = token.withBorrowedUTF8 { bytes in
            Result { () throws(APNsProviderTokenError) -> APNsProviderTokenAcceptance in
                guard !bytes.isEmpty else { throw .missingProviderToken }
                return try verify(tokenBytes: bytes, topic: topic, connection: &connection)
            }
        }
        return try outcome.get()
    }

    // MARK: Rules

    private func verify(
        tokenBytes: UnsafeBufferPointer<UInt8>,
        topic: String?,
        connection: inout APNsConnectionTokenState
    ) throws(APNsProviderTokenError) -> APNsProviderTokenAcceptance {
        // A client reuses one token per connection for 20-60 minutes, so the token in force
        // on this connection is checked first: one byte comparison, no hash, no lock.
        let record: VerifiedTokenRecord
        let wasCached: Bool
        if let current = connection.currentRecord, current.keySet === keySet, current.matches(tokenBytes) {
            record = current
            wasCached = true
        } else {
            let hash = cache.hash(tokenBytes)
            if let cached = cache.record(for: tokenBytes, hash: hash) {
                record = cached
                wasCached = true
            } else {
                record = try verifyUncached(tokenBytes)
                cache.insert(record, hash: hash)
                wasCached = false
            }
        }

        let currentTime = now().timeIntervalSince1970
        let age = currentTime - record.issuedAt
        if age > configuration.tokenLifetime {
            throw .expiredProviderToken(ageSeconds: Int(age.rounded(.down)), lifetimeSeconds: Int(configuration.tokenLifetime.rounded(.down)))
        }
        var futureBy: Double?
        // `iat` counts whole seconds and the default clock is coarse (it may trail the
        // signer's by a few milliseconds), so a token minted this very second is not "from
        // the future"; a second or more ahead is.
        if age <= -1 {
            guard -age <= configuration.futureIssuedAtTolerance else {
                throw .invalidProviderToken(detail: futureMessage(issuedAt: record.issuedAt, aheadBy: -age, now: currentTime))
            }
            futureBy = -age
        }

        guard record.environments.allows(connection.environment) else { throw .badEnvironmentKeyIdInToken }
        if let topics = record.topics {
            guard let topic, topics.contains(topic) else {
                throw .invalidProviderToken(
                    detail: "key \(record.keyID) is specific to other topics and may not push to \(topic.map { "'\($0)'" } ?? "a push without apns-topic")")
            }
        }
        if !connection.boundTopics.isEmpty, let bound = connection.boundTopics[record.keyID] {
            // Also when the key has since become team-scoped: that, too, adds topics.
            guard let topic, bound.contains(topic) else {
                throw .invalidProviderToken(
                    detail: "key \(record.keyID) covers \(topic.map { "'\($0)'" } ?? "pushes without apns-topic") only since this "
                        + "connection first used it; APNs binds a connection to its topics then: open a new connection")
            }
        }

        guard let current = connection.currentRecord else {
            // The first accepted push binds the connection.
            connection.firstRecord = record
            connection.currentRecord = record
            connection.currentTokenSince = currentTime
            Self.bindTopics(of: record, to: &connection)
            return APNsProviderTokenAcceptance(record: record, futureBy: futureBy, wasCached: wasCached)
        }
        if current !== record {
            if let first = connection.firstRecord, first.keyID != record.keyID {
                guard first.teamID == record.teamID, first.isTopicSpecific == record.isTopicSpecific,
                      first.environments == record.environments else {
                    throw .unrelatedKeyIdInToken
                }
            }
            if current.tokenBytes != record.tokenBytes {
                // Apple: an error "if you recreate your tokens more than once every 20
                // minutes". Tokens minted that far apart are a refresh, however soon the
                // connection sees the new one: a connection opened late in a shared token's
                // hour must be able to take the next token when it comes.
                let mintedApart = abs(record.issuedAt - current.issuedAt) >= configuration.minimumTokenUpdateInterval
                let heldLongEnough = currentTime - connection.currentTokenSince >= configuration.minimumTokenUpdateInterval
                guard mintedApart || heldLongEnough else { throw .tooManyProviderTokenUpdates }
                connection.currentTokenSince = currentTime
            }
            connection.currentRecord = record
            Self.bindTopics(of: record, to: &connection)
        }
        return APNsProviderTokenAcceptance(record: record, futureBy: futureBy, wasCached: wasCached)
    }

    /// Records a topic-specific key's topics the first time the connection accepts it. A key
    /// that was team-scoped then covered every topic, and is never bound: only the binding
    /// key can be one (a later key of another kind is unrelated).
    private static func bindTopics(of record: VerifiedTokenRecord, to connection: inout APNsConnectionTokenState) {
        guard let topics = record.topics, connection.boundTopics[record.keyID] == nil else { return }
        if let first = connection.firstRecord, first.keyID == record.keyID, !first.isTopicSpecific { return }
        connection.boundTopics[record.keyID] = topics
    }

    /// Full verification of a token not in the cache.
    private func verifyUncached(_ tokenBytes: UnsafeBufferPointer<UInt8>) throws(APNsProviderTokenError) -> VerifiedTokenRecord {
        let token: DecodedJWT
        let keyID: String
        do {
            token = try DecodedJWT(parsing: tokenBytes)
            keyID = try JWTVerifier.checkHeaderAndSignatureShape(token)
        } catch {
            throw .invalidProviderToken(detail: error.message)
        }
        guard let key = keys[keyID] else {
            throw .invalidProviderToken(detail: "no key is registered for kid \"\(keyID)\"")
        }
        do {
            try JWTVerifier.verifySignature(of: token, with: key.publicKey)
        } catch {
            throw .invalidProviderToken(detail: error.message)
        }

        var warnings: [APNsTokenLintWarning] = []
        switch token.claims.fields["iss"] {
        case .string(let issuer):
            guard issuer == key.teamID else {
                throw .invalidProviderToken(detail: "iss \"\(issuer)\" is not the team of key \(keyID)")
            }
        case nil:
            throw .invalidProviderToken(detail: "the claims have no iss (team ID)")
        case let other?:
            throw .invalidProviderToken(detail: "iss must be a string, found a JSON \(other.typeName)")
        }
        let issuedAt = try Self.issuedAt(of: token.claims, warnings: &warnings)

        if let type = token.header.fields["typ"] {
            warnings.append(
                APNsTokenLintWarning(kind: .typeHeaderPresent, message: "header has typ \(type); APNs needs only alg and kid"))
        }
        let extraHeader = token.header.fields.keys.filter { !["alg", "kid", "typ"].contains($0) }.sorted()
        if !extraHeader.isEmpty {
            warnings.append(
                APNsTokenLintWarning(
                    kind: .unexpectedHeaderField,
                    message: "header has members APNs ignores: \(extraHeader.joined(separator: ", "))"))
        }
        let extraClaims = token.claims.fields.keys.filter { $0 != "iss" && $0 != "iat" }.sorted()
        if !extraClaims.isEmpty {
            warnings.append(
                APNsTokenLintWarning(
                    kind: .unexpectedClaim, message: "claims APNs ignores: \(extraClaims.joined(separator: ", "))"))
        }
        return VerifiedTokenRecord(
            tokenBytes: Array(tokenBytes), keyID: keyID, key: key, issuedAt: issuedAt, token: token,
            lintWarnings: warnings, keySet: keySet)
    }

    /// Reads `iat` as APNs does: an integer, a numeric string, or a fractional number.
    private static func issuedAt(of claims: JWTClaims, warnings: inout [APNsTokenLintWarning]) throws(APNsProviderTokenError) -> Double {
        switch claims.fields["iat"] {
        case .integer(let seconds):
            return Double(seconds)
        case .double(let seconds):
            warnings.append(
                APNsTokenLintWarning(kind: .issuedAtIsFractional, message: "iat is the fractional number \(seconds); send whole seconds"))
            return seconds
        case .string(let text):
            guard let seconds = numericValue(of: text) else {
                throw .invalidProviderToken(detail: "iat must be a number of seconds, found the string \"\(text)\"")
            }
            warnings.append(
                APNsTokenLintWarning(kind: .issuedAtIsString, message: "iat is the string \"\(text)\"; send a JSON number"))
            return seconds
        case nil:
            throw .invalidProviderToken(detail: "the claims have no iat (issued-at time)")
        case let other?:
            throw .invalidProviderToken(detail: "iat must be a number of seconds, found a JSON \(other.typeName)")
        }
    }

    /// Decimal digits with at most one `.`, as a number; rejects signs, exponents, hex,
    /// `inf` and `nan`, which `Double(_:)` would accept.
    private static func numericValue(of text: String) -> Double? {
        var dots = 0
        var digits = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits += 1
            case UInt8(ascii: "."): dots += 1
            default: return nil
            }
        }
        guard digits > 0, dots <= 1, digits <= 20 else { return nil }
        return Double(text)
    }

    private func futureMessage(issuedAt: Double, aheadBy: Double, now: Double) -> String {
        var text = "iat is \(SecondsText.roundedUp(aheadBy)) s in the future; at most "
            + "\(SecondsText.roundedUp(configuration.futureIssuedAtTolerance)) s of clock skew is allowed"
        if issuedAt > now * 100 { text += "; it looks like milliseconds, but iat is in seconds" }
        return text
    }

    /// The token in an `authorization` header value.
    private static func bearerToken(in header: UnsafeBufferPointer<UInt8>) throws(APNsProviderTokenError) -> UnsafeBufferPointer<UInt8> {
        switch BearerAuthorization.read(header) {
        case .missing: throw .missingProviderToken
        case .otherScheme: throw .invalidProviderToken(detail: "the authorization header must be 'bearer <token>'")
        case .token(let range): return UnsafeBufferPointer(rebasing: header[range])
        }
    }
}
