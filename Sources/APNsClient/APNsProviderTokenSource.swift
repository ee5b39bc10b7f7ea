import Foundation
import JWTVerify
import Synchronization

/// The provider token every connection of a client sends: signed once, reused until the
/// refresh interval passes, and replaced at once after APNs calls it expired.
///
/// Which connection may carry a new token is the pool's decision (`APNsConnectionPool.lease()`):
/// APNs allows a connection one token change per 20 minutes.
final class APNsProviderTokenSource: Sendable {
    /// One signed token; `generation` tells a token from the one that replaced it.
    struct Token: Sendable {
        var bearer: String
        var issuedAt: Date
        var generation: Int
    }

    /// The least time, in seconds, a connection must carry one token before APNs lets it
    /// change to another: sooner is `429 TooManyProviderTokenUpdates`.
    static let minimumTokenChangeInterval: TimeInterval = 20 * 60

    private let signer: JWTSigner
    private let teamID: String
    private let refreshInterval: TimeInterval
    /// The clock tokens are dated by; the pool times each connection's token changes by it too.
    let now: @Sendable () -> Date
    private struct State {
        var token: Token?
        var generation = 0
    }

    private let state = Mutex(State())

    init(signer: JWTSigner, teamID: String, refreshInterval: Duration, now: @escaping @Sendable () -> Date) {
        self.signer = signer
        self.teamID = teamID
        let parts = refreshInterval.components
        self.refreshInterval = Double(parts.seconds) + Double(parts.attoseconds) / 1e18
        self.now = now
    }

    /// The token to send now, signing a new one when there is none or it is due.
    func current() throws(APNsClientError) -> Token {
        let date = now()
        // Signing under the lock: a refresh happens once per interval, and concurrent
        // senders must not each sign (APNs limits token changes per connection).
        let result: Result<Token, APNsClientError> = state.withLock { (state: inout State) -> Result<Token, APNsClientError> in
            // A clock that went backwards also makes a token unusable (iat in the future).
            if let token = state.token, date.timeIntervalSince(token.issuedAt) < refreshInterval,
                date >= token.issuedAt.addingTimeInterval(-1) {
                return .success(token)
            }
            do throws(JWTError) {
                let bearer = "bearer " + (try signer.makeProviderToken(teamID: teamID, issuedAt: date))
                state.generation += 1
                let token = Token(bearer: bearer, issuedAt: date, generation: state.generation)
                state.token = token
                return .success(token)
            } catch {
                return .failure(.tokenSigningFailed(error.message))
            }
        }
        return try result.get()
    }

    /// Drops `generation` after APNs answered `ExpiredProviderToken`, so the next send signs
    /// afresh; a token already replaced by another sender stays.
    func invalidate(generation: Int) {
        state.withLock { state in
            if state.token?.generation == generation { state.token = nil }
        }
    }

    /// How many tokens have been signed.
    var tokensSigned: Int { state.withLock { $0.generation } }
}
