import struct Foundation.Date
import HTTPTransport

/// One connection of an `APNsConnectionPool` with the pool's bookkeeping.
final class APNsPooledConnection: @unchecked Sendable {
    // Unchecked: `client` and `id` are immutable; the `var`s are touched only under the
    // owning pool's lock.
    let client: HTTP2Client
    let id: Int
    /// Pushes leased on this connection and not yet released.
    var inFlight = 0
    /// When a push last started or ended on it (or a PING was answered), for idle PINGs.
    var lastActivity: ContinuousClock.Instant
    /// Taken out of the pool: no new pushes; closed once `inFlight` reaches 0.
    var isRetired = false
    /// A PING is under way.
    var isPinging = false
    /// The generation of the provider token pushes on this connection carry; nil before the first.
    var tokenGeneration: Int?
    /// When APNs first answered a push with that token here with anything but a provider-token
    /// error (403, `TooManyProviderTokenUpdates`), by the client's clock (at the answer, so
    /// never before APNs' own moment): it counts 20 minutes from then before the connection
    /// may change tokens. Nil until then.
    var tokenAcceptedSince: Date?

    init(client: HTTP2Client, id: Int) {
        self.client = client
        self.id = id
        lastActivity = .now
    }

    /// Whether the connection can take new streams: not going away, not closed.
    var isUsable: Bool {
        switch client.state {
        case .idle, .connecting, .active: true
        case .goingAway, .closed: false
        }
    }
}
