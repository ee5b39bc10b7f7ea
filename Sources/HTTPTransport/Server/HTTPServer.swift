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

    /// Stops accepting, lets requests in flight finish, sends GOAWAY, then closes.
    ///
    /// Connections still open after `gracePeriod` are closed abruptly. Blocks until done.
    public func shutdown(gracePeriod: Duration = .seconds(5)) {
        guard !context.isShuttingDown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        acceptor.stop()
        forEachConnection { $0.beginGracefulShutdown() }
        let deadline = ContinuousClock.now + gracePeriod
        while context.counters.openConnections.load(ordering: .relaxed) > 0 && ContinuousClock.now < deadline {
            usleep(5_000)
        }
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

    private func forEachConnection(_ body: @escaping @Sendable (ServerConnection) -> Void) {
        let done = DispatchGroup()
        for loop in group.loops {
            guard let registry = context.registry(for: loop) else { continue }
            done.enter()
            loop.execute {
                for connection in Array(registry.connections.values) { body(connection) }
                done.leave()
            }
        }
        done.wait()
    }
}

/// Accepts connections on the first loop and deals them round-robin to all loops.
final class Acceptor: Selectable, @unchecked Sendable {
    // Unchecked: after `start()` all state is touched only on `loop`.
    private let listener: ListeningSocket
    private let context: ServerContext
    private let group: EventLoopGroup
    private let loop: EventLoop
    private var isOpen = true

    init(listener: ListeningSocket, context: ServerContext, group: EventLoopGroup) {
        self.listener = listener
        self.context = context
        self.group = group
        loop = group.loops[0]
    }

    func start() throws(TransportError) {
        let result = Mutex<TransportError?>(nil)
        let done = DispatchSemaphore(value: 0)
        loop.execute { [self] in
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
        loop.execute { [self] in
            if self.isOpen {
                self.isOpen = false
                self.loop.deregister(fd: self.listener.socket.fd)
                self.listener.socket.close()
            }
            done.signal()
        }
        done.wait()
    }

    func readReady() {
        for _ in 0..<64 {
            guard isOpen, let (socket, peer) = listener.accept() else { return }
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
            target.execute {
                ServerConnection.open(transfer.take(), id: id, peer: peer, context: context, loop: target)
            }
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
