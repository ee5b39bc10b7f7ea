import Foundation
import Synchronization

/// An HTTP/2 and HTTP/1.1 server over TLS or cleartext, on nghttp2 and OpenSSL.
///
/// It binds when created and serves until `shutdown(gracePeriod:)`. Connections are
/// spread over the event loops; each request reaches the handler on its
/// connection's loop.
///
/// ```swift
/// let server = try HTTPServer(
///     configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0),
///     handler: ClosureHandler { _ in HTTPResponse(status: 200, text: "ok\n") })
/// print(server.localAddress)       // 127.0.0.1:40123
/// server.shutdown()
/// ```
public final class HTTPServer: Sendable {
    public let configuration: HTTPServerConfiguration
    /// The address actually bound, with the port the OS chose for port 0.
    public let localAddress: SocketAddress
    let context: ServerContext
    private let group: EventLoopGroup
    private let ownsGroup: Bool
    private let acceptor: Acceptor

    /// Binds and starts serving.
    ///
    /// - Parameters:
    ///   - configuration: address, TLS and limits.
    ///   - handler: answers requests; called on event-loop threads.
    ///   - group: loops to run on; by default the server starts its own, one per core.
    /// - Throws: `TransportError` when the address cannot be bound or TLS files cannot be loaded.
    /// - Important: do not call from an event-loop thread.
    public init(configuration: HTTPServerConfiguration, handler: any HTTPServerHandler,
                group sharedGroup: EventLoopGroup? = nil) throws(TransportError) {
        self.configuration = configuration
        ownsGroup = sharedGroup == nil
        let group: EventLoopGroup
        if let sharedGroup { group = sharedGroup } else { group = try EventLoopGroup() }
        self.group = group
        do throws(TransportError) {
            context = try ServerContext(configuration: configuration, handler: handler, group: group)
            let address = try SocketAddress(host: configuration.host, port: configuration.port)
            let listener = try ListeningSocket(address: address)
            localAddress = listener.address
            acceptor = Acceptor(listener: listener, context: context, group: group)
            try acceptor.start()
        } catch {
            if ownsGroup { group.shutdown() }
            throw error
        }
    }

    /// Current connection, stream and request counts.
    public var metrics: TransportMetrics { context.counters.snapshot }

    /// Stops accepting, sends GOAWAY (with `shutdownGoAwayDebugData`), lets requests in flight
    /// finish, then closes.
    ///
    /// Requests still unanswered after `gracePeriod` get the handler's answer to
    /// `HTTPRequestRejection.shuttingDown` (503), so no client is left waiting for one; their
    /// connections then close once that is written, or abruptly after `ByteStream`'s linger
    /// time. Blocks until done.
    public func shutdown(gracePeriod: Duration = .seconds(5)) {
        guard !context.isShuttingDown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        acceptor.stop()
        forEachConnection { $0.beginGracefulShutdown() }
        waitForConnectionsToClose(until: .now + gracePeriod)
        forEachConnection { $0.finishShutdown() }
        waitForConnectionsToClose(until: .now + ByteStream.lingerTimeout + .milliseconds(200))
        forEachConnection { $0.stream.close(error: .shuttingDown, abort: true) }
        let hardDeadline = ContinuousClock.now + .seconds(2)
        while context.counters.openConnections.load(ordering: .relaxed) > 0 && ContinuousClock.now < hardDeadline {
            usleep(1_000)
        }
        if ownsGroup { group.shutdown() }
    }

    /// The `async` form of `shutdown(gracePeriod:)`.
    public func shutdown(gracePeriod: Duration = .seconds(5)) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread { [self] in
                self.shutdown(gracePeriod: gracePeriod)
                continuation.resume()
            }
        }
    }

    private func waitForConnectionsToClose(until deadline: ContinuousClock.Instant) {
        while context.counters.openConnections.load(ordering: .relaxed) > 0 && ContinuousClock.now < deadline {
            usleep(5_000)
        }
    }

    /// What each open connection holds, read on the connections' loops. Nghttp2's share is
    /// counted only with `HTTPServerConfiguration.countsConnectionMemory`.
    func connectionMemory() -> [ConnectionMemory] {
        let collected = Mutex<[ConnectionMemory]>([])
        forEachConnection { connection in
            let memory = connection.memory
            collected.withLock { $0.append(memory) }
        }
        return collected.withLock { $0 }
    }

    private func forEachConnection(_ body: @escaping @Sendable (ServerConnection) -> Void) {
        let done = DispatchGroup()
        for loop in group.loops {
            guard let registry = context.registry(for: loop) else { continue }
            done.enter()
            do {
                try loop.execute {
                    for connection in Array(registry.connections.values) { body(connection) }
                    done.leave()
                }
            } catch {
                done.leave()  // A stopped loop closed its connections when it stopped.
            }
        }
        done.wait()
    }
}

/// Accepts connections on the first loop and deals them round-robin to all loops.
///
/// When accepting fails (the process or the system out of file descriptors, `EMFILE` or
/// `ENFILE`), the pending connection stays queued and the level-triggered listener stays
/// readable: retrying at once would spin a core. Instead the listener is unwatched for
/// `pauseAfterAcceptFailure` and then watched again, so the queued clients are served as soon
/// as descriptors free up. Each pause is counted (`TransportMetrics.acceptPauses`), and
/// logged at most once per `acceptFailureLogInterval`.
final class Acceptor: Selectable, @unchecked Sendable {
    // Unchecked: after `start()` all state is touched only on `loop`.
    private let listener: ListeningSocket
    private let context: ServerContext
    private let group: EventLoopGroup
    private let loop: EventLoop
    private var isOpen = true
    private var isPaused = false
    /// Pauses since the last log line, and when that line was written.
    private var unloggedPauses = 0
    private var lastLog: ContinuousClock.Instant?

    static let pauseAfterAcceptFailure = Duration.milliseconds(100)
    static let acceptFailureLogInterval = Duration.seconds(10)

    init(listener: ListeningSocket, context: ServerContext, group: EventLoopGroup) {
        self.listener = listener
        self.context = context
        self.group = group
        loop = group.loops[0]
    }

    func start() throws(TransportError) {
        let result = Mutex<TransportError?>(nil)
        let done = DispatchSemaphore(value: 0)
        try loop.execute { [self] in
            do throws(TransportError) {
                try self.loop.register(self, fd: self.listener.socket.fd, interest: .read)
            } catch {
                result.withLock { $0 = error }
            }
            done.signal()
        }
        done.wait()
        if let error = result.withLock({ $0 }) { throw error }
    }

    func stop() {
        let done = DispatchSemaphore(value: 0)
        do {
            try loop.execute { [self] in
                self.close()
                done.signal()
            }
        } catch {
            return  // The loop closed the listener when it stopped (`loopDidStop`).
        }
        done.wait()
    }

    private func close() {
        guard isOpen else { return }
        isOpen = false
        loop.deregister(fd: listener.socket.fd)
        listener.socket.close()
    }

    func loopDidStop() { close() }

    func readReady() {
        for _ in 0..<64 {
            guard isOpen, !isPaused else { return }
            let accepted: (Socket, SocketAddress?)?
            do {
                accepted = try listener.accept()
            } catch {
                pause(after: error)
                return
            }
            guard let (socket, peer) = accepted else { return }
            let counters = context.counters
            if counters.openConnections.load(ordering: .relaxed) >= context.configuration.maxConnections
                || context.isShuttingDown.load(ordering: .relaxed) {
                counters.rejectedConnections.wrappingAdd(1, ordering: .relaxed)
                socket.close()
                continue
            }
            if let sources = context.sources, let peer, !sources.admit(ClientSource(peer)) {
                counters.rejectedConnections.wrappingAdd(1, ordering: .relaxed)
                counters.rejectedSourceConnections.wrappingAdd(1, ordering: .relaxed)
                socket.close()
                continue
            }
            counters.openConnections.wrappingAdd(1, ordering: .relaxed)
            counters.acceptedConnections.wrappingAdd(1, ordering: .relaxed)
            let id = context.nextConnectionID.wrappingAdd(1, ordering: .relaxed).oldValue
            let target = group.next()
            let transfer = SocketTransfer(socket: socket)
            let context = context
            do {
                try target.execute {
                    ServerConnection.open(transfer.take(), id: id, peer: peer, context: context, loop: target)
                }
            } catch {
                socket.close()
                context.connectionEnded(from: peer)
            }
        }
    }

    /// Stops watching the listener for a while: see the type's comment.
    private func pause(after error: TransportError) {
        isPaused = true
        context.counters.acceptPauses.wrappingAdd(1, ordering: .relaxed)
        unloggedPauses += 1
        let now = ContinuousClock.now
        if lastLog.map({ $0.duration(to: now) >= Self.acceptFailureLogInterval }) ?? true {
            Log.error("listener \(listener.address): \(error); not accepting for \(Self.pauseAfterAcceptFailure) at a time "
                + "(\(unloggedPauses) pause(s) since the last report); raise the descriptor limit (ulimit -n) or lower "
                + "max connections")
            lastLog = now
            unloggedPauses = 0
        }
        loop.reregister(fd: listener.socket.fd, interest: [])
        loop.schedule(after: Self.pauseAfterAcceptFailure) { [weak self] in
            guard let self, self.isOpen else { return }
            self.isPaused = false
            self.loop.reregister(fd: self.listener.socket.fd, interest: .read)
        }
    }

    func writeReady() {}
    func hangupReady() {}
}

/// Hands an accepted socket to another loop; only the receiving loop touches it.
private final class SocketTransfer: @unchecked Sendable {
    // Unchecked: written once before the hand-over, read once after it.
    private let socket: Socket
    init(socket: Socket) { self.socket = socket }
    func take() -> Socket { socket }
}

extension ServerConnection {
    /// Sets up TLS and the connection on `loop`, the thread it will live on.
    static func open(_ socket: Socket, id: UInt64, peer: SocketAddress?, context: ServerContext, loop: EventLoop) {
        socket.setNoDelay()
        var tls: TLSConnection?
        if let tlsContext = context.tlsContext {
            do {
                tls = try TLSConnection(context: tlsContext, fd: socket.fd)
            } catch {
                socket.close()
                context.connectionEnded(from: peer)
                return
            }
        }
        let stream = ByteStream(socket: socket, tls: tls, eventLoop: loop)
        let connection = ServerConnection(id: id, stream: stream, context: context, remoteAddress: peer)
        if context.isShuttingDown.load(ordering: .acquiring) {
            socket.close()
            context.connectionEnded(from: peer)
            return
        }
        connection.start()
    }
}
