import struct Foundation.Date
import HTTPTransport
import Synchronization

/// The persistent HTTP/2 connections to one destination.
///
/// A push goes to the busiest connection that still has room under both the server's
/// SETTINGS_MAX_CONCURRENT_STREAMS (taken as 1 until the server has sent it, as APNs allows
/// one stream before authentication) and `maximumStreamsPerConnection`. A new connection is
/// opened only when every open one is full and the pool is below its size; when the pool
/// is full, the push waits in the least busy connection until a stream frees up (the
/// transport never exceeds the server's limit, but `maximumStreamsPerConnection` is then
/// exceeded: it decides when to open another connection, and caps nothing). Connections that received GOAWAY or were
/// lost leave the pool at once and are closed when their last push ends, so the next push
/// reconnects.
///
/// With more than one event loop, a push leased on a loop's thread (a server answering on
/// the client's loops, such as the gateway) only looks at the connections on that loop, and
/// opens one there if none has room and the loop has fewer than its share of the pool
/// (`maximumConnections` divided among the loops, rounded up): its stream and its answer
/// then stay on the thread it came from, with no hop between loops either way. Only when
/// the pool is full and none of them is on that loop does it use another loop's
/// connection. Pushes leased elsewhere (from tasks) use any connection.
///
/// With token authentication the pool also hands out the provider token, and keeps APNs'
/// rule that a connection changes tokens at most once per 20 minutes (see `lease()`).
final class APNsConnectionPool: Sendable {
    private struct State {
        var connections: [APNsPooledConnection] = []
        /// Retired connections not closed yet, so `shutdown()` can close them before the loops stop.
        var retired: [APNsPooledConnection] = []
        /// Closes under way, which `shutdown()` waits for.
        var closing: [Int: Task<Void, Never>] = [:]
        var nextID = 0
        var isShutDown = false
        var opened = 0
    }

    let destination: APNsDestination
    /// Shared by every connection: the TLS context is built once, not per connection.
    private let endpoint: HTTP2ClientEndpoint
    private let group: EventLoopGroup
    private let maximumConnections: Int
    private let maximumStreams: Int
    /// Nil with certificate authentication.
    private let tokens: APNsProviderTokenSource?
    private let state = Mutex(State())

    /// A connection leased for one attempt, and the provider token the attempt must carry on it.
    struct Lease {
        let connection: APNsPooledConnection
        /// Nil with certificate authentication.
        let token: APNsProviderTokenSource.Token?
    }

    init(destination: APNsDestination, endpoint: HTTP2ClientEndpoint, group: EventLoopGroup,
         maximumConnections: Int, maximumStreams: Int, tokens: APNsProviderTokenSource?) {
        self.tokens = tokens
        self.destination = destination
        self.endpoint = endpoint
        self.group = group
        self.maximumConnections = maximumConnections
        self.maximumStreams = maximumStreams
    }

    /// A connection for one push and the provider token to send on it; the caller must
    /// `release` the connection.
    ///
    /// APNs lets a connection change its token at most once per 20 minutes, so a connection
    /// whose token is older than the current one changes to it only if APNs accepted its own
    /// at least 20 minutes ago. Any other such connection leaves the pool (its pushes in
    /// flight finish; it is closed when idle), and new connections start with the current
    /// token. This covers both a scheduled refresh and a token dropped after
    /// `ExpiredProviderToken`.
    ///
    /// `avoiding` names a connection that just refused the push unprocessed: it is chosen
    /// only when no other connection has room and none can be opened.
    ///
    /// Called on event loops, under the pool's lock: opening a connection here only makes
    /// the client. Its name lookup, socket and handshake happen on its loop, or on a resolver
    /// thread, after the lease.
    ///
    /// - Throws: `.shutDown` or `.tokenSigningFailed`.
    func lease(avoiding avoided: Int? = nil) throws(APNsClientError) -> Lease {
        var toClose: [APNsPooledConnection] = []
        defer { for connection in toClose { close(connection) } }
        let result: Result<Lease, APNsClientError> = state.withLock { state in
            guard !state.isShutDown else { return .failure(.shutDown) }
            // Taken under the pool's lock, so tokens reach the connections in the order they
            // were signed: one taken earlier cannot arrive after a newer one and move a
            // connection back. (The token source never takes the pool's lock: no deadlock.)
            let token: APNsProviderTokenSource.Token?
            do throws(APNsClientError) {
                token = try tokens?.current()
            } catch {
                return .failure(error)
            }
            toClose = Self.removeUnusable(&state)
            if let token, let tokens {
                toClose += Self.prepare(for: token, now: tokens.now, in: &state)
            }
            let here = group.loops.count > 1 ? group.currentLoop : nil
            var (best, leastBusy, local) = choose(among: state.connections, on: here, avoiding: avoided)
            // A loop opens at most its share of the pool: a burst on one loop before APNs
            // raises its one-stream limit must not take every connection the others need.
            let share = here == nil ? maximumConnections : (maximumConnections + group.loops.count - 1) / group.loops.count
            if best == nil, state.connections.count < maximumConnections, local < share {
                let connection = APNsPooledConnection(client: HTTP2Client(endpoint: endpoint, group: group, on: here),
                                                      id: state.nextID)
                state.nextID += 1
                state.opened += 1
                state.connections.append(connection)
                best = connection
            }
            if best == nil, leastBusy == nil, here != nil {
                // Full, and nothing on this loop: another loop's connection, at the cost of a hop.
                (best, leastBusy, _) = choose(among: state.connections, on: nil, avoiding: avoided)
            }
            // A pool of at least one connection always has one to give.
            guard let chosen = best ?? leastBusy else { return .failure(.shutDown) }
            chosen.inFlight += 1
            chosen.lastActivity = .now
            // Every connection left carries this token or none yet (`prepare`).
            chosen.tokenGeneration = token?.generation
            return .success(Lease(connection: chosen, token: token))
        }
        return try result.get()
    }

    /// Ends a push's use of `connection`; `retire` takes it out of the pool (after
    /// ExpiredProviderToken, say) even if it still works. `acceptedToken` is the generation
    /// of the provider token of a push APNs answered with anything but a provider-token error
    /// (a 200, a 410, a 5xx…): the first such answer for a token on a connection starts its 20
    /// minutes.
    func release(_ connection: APNsPooledConnection, retire: Bool = false, acceptedToken: Int? = nil) {
        let closeNow = state.withLock { state -> Bool in
            connection.inFlight -= 1
            connection.lastActivity = .now
            if let acceptedToken, connection.tokenAcceptedSince == nil, connection.tokenGeneration == acceptedToken {
                connection.tokenAcceptedSince = tokens?.now()
            }
            if retire || !connection.isUsable { Self.retire(connection, in: &state) }
            return connection.isRetired && connection.inFlight == 0
        }
        if closeNow { close(connection) }
    }

    /// Connections opened so far, including those since closed.
    var connectionsOpened: Int { state.withLock { $0.opened } }

    /// Connections in the pool now.
    var openConnections: Int { state.withLock { $0.connections.count } }

    /// PINGs every connection that no push has started or ended on for `interval`; one whose
    /// PING fails leaves the pool. A PING unanswered for the transport's `pingTimeout` fails
    /// and closes its connection, so a black-holed connection cannot stay pinging forever.
    func pingIdleConnections(idleFor interval: Duration) {
        let now = ContinuousClock.now
        let due: [APNsPooledConnection] = state.withLock { state in
            state.connections.filter { connection in
                // Pushes in flight do not matter: one waiting that long is itself a reason to check.
                guard !connection.isPinging, connection.client.state == .active,
                      connection.lastActivity.duration(to: now) >= interval else { return false }
                connection.isPinging = true
                return true
            }
        }
        for connection in due {
            // A callback on the connection's loop, not a task: a busy cooperative pool cannot delay it.
            connection.client.ping { [self] result in
                let failed = if case .failure = result { true } else { false }
                let closeNow = state.withLock { state -> Bool in
                    connection.isPinging = false
                    connection.lastActivity = .now
                    if failed || !connection.isUsable { Self.retire(connection, in: &state) }
                    return connection.isRetired && connection.inFlight == 0
                }
                if closeNow { close(connection) }
            }
        }
    }

    /// Closes every connection, retired ones included, and waits until each has closed:
    /// the event loops may be stopped afterwards. Later leases fail with `.shutDown`.
    func shutdown() async {
        let (connections, closing) = state.withLock { state in
            state.isShutDown = true
            defer {
                state.connections = []
                state.retired = []
                state.closing = [:]
            }
            return (state.connections + state.retired, Array(state.closing.values))
        }
        for connection in connections { await connection.client.close() }
        for task in closing { await task.value }
    }

    /// Among `connections` (only those on `loop`, when given): the busiest with room (never
    /// the one with id `avoided`), the least busy, and how many there are.
    private func choose(among connections: [APNsPooledConnection], on loop: EventLoop?, avoiding avoided: Int?)
        -> (best: APNsPooledConnection?, leastBusy: APNsPooledConnection?, count: Int) {
        var best: APNsPooledConnection?
        var leastBusy: APNsPooledConnection?
        var count = 0
        for connection in connections where loop.map({ connection.client.eventLoop === $0 }) ?? true {
            count += 1
            if leastBusy.map({ connection.inFlight < $0.inFlight }) ?? true { leastBusy = connection }
            // Until the server's SETTINGS arrive, assume APNs' one stream before authentication,
            // so a burst spreads over new connections instead of queueing on the first.
            let room = min(maximumStreams, connection.client.peerMaxConcurrentStreams ?? 1)
            guard connection.inFlight < room, connection.id != avoided else { continue }
            // The busiest connection with room: pushes sent together then share one write
            // and one wake-up of the server instead of being dealt out one per connection.
            if best.map({ connection.inFlight > $0.inFlight }) ?? true { best = connection }
        }
        return (best, leastBusy, count)
    }

    private static func removeUnusable(_ state: inout State) -> [APNsPooledConnection] {
        var idle: [APNsPooledConnection] = []
        for connection in state.connections where !connection.isUsable {
            retire(connection, in: &state)
            if connection.inFlight == 0 { idle.append(connection) }
        }
        return idle
    }

    /// Readies the pool's connections for `token`. One that carries an older token changes
    /// to it if APNs accepted its own at least 20 minutes ago; any other leaves the pool, as
    /// changing sooner is `TooManyProviderTokenUpdates` and tokens never go back, so it could
    /// not be used again. Returns those that left with no push in flight, to be closed.
    private static func prepare(
        for token: APNsProviderTokenSource.Token, now: () -> Date, in state: inout State
    ) -> [APNsPooledConnection] {
        var idle: [APNsPooledConnection] = []
        var date: Date?
        for connection in state.connections {
            guard let generation = connection.tokenGeneration, generation != token.generation else { continue }
            let current = date ?? now()
            date = current
            // No acceptance yet (its first push still in flight, say) counts as too recent.
            if let since = connection.tokenAcceptedSince,
               current.timeIntervalSince(since) >= APNsProviderTokenSource.minimumTokenChangeInterval {
                connection.tokenGeneration = token.generation
                connection.tokenAcceptedSince = nil
            } else {
                retire(connection, in: &state)
                if connection.inFlight == 0 { idle.append(connection) }
            }
        }
        return idle
    }

    private static func retire(_ connection: APNsPooledConnection, in state: inout State) {
        guard !connection.isRetired else { return }
        connection.isRetired = true
        state.connections.removeAll { $0 === connection }
        state.retired.append(connection)
    }

    /// Closes a retired connection whose last push has ended.
    private func close(_ connection: APNsPooledConnection) {
        state.withLock { state in
            // After shutdown() took the list, it closes the connection itself.
            guard let index = state.retired.firstIndex(where: { $0 === connection }) else { return }
            state.retired.remove(at: index)
            state.closing[connection.id] = Task {
                await connection.client.close()
                _ = self.state.withLock { $0.closing.removeValue(forKey: connection.id) }
            }
        }
    }
}
