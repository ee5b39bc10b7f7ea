/// An HTTP server without a listener: it serves sockets that are already connected, such as
/// one end of a `socketpair`, on the same path as ``HTTPServer`` (`ServerConnection`,
/// protocol detection, the HTTP/2 and HTTP/1.1 sessions, the deadlines).
///
/// For the fuzz targets (Fuzz/, docs/fuzzing.md), which feed the server raw bytes: a
/// socket pair leaves out the listener and the kernel's TCP stack, which only add time and
/// nondeterminism to each input. SPI, so that it is no part of the public API.
///
/// ```swift
/// @_spi(Fuzzing) import HTTPTransport
/// let server = try SocketServer(configuration: configuration, handler: handler)
/// server.serve(fd: serverEnd)   // takes ownership of the descriptor
/// ```
@_spi(Fuzzing)
public final class SocketServer: Sendable {
    private let context: ServerContext
    private let group: EventLoopGroup

    /// Starts one event loop for the connections. `configuration`'s address and TLS are unused.
    public init(configuration: HTTPServerConfiguration, handler: any HTTPServerHandler) throws(TransportError) {
        var configuration = configuration
        configuration.tls = nil
        group = try EventLoopGroup(threads: 1)
        do {
            context = try ServerContext(configuration: configuration, handler: handler, group: group)
        } catch {
            group.shutdown()
            throw error
        }
    }

    deinit { group.shutdown() }

    /// Serves one connected, non-blocking stream socket, as if the listener had accepted it.
    /// The server owns `fd` from here on and closes it when the connection ends.
    public func serve(fd: Int32) {
        let context = context
        context.counters.openConnections.wrappingAdd(1, ordering: .relaxed)
        context.counters.acceptedConnections.wrappingAdd(1, ordering: .relaxed)
        let id = context.nextConnectionID.wrappingAdd(1, ordering: .relaxed).oldValue
        let loop = group.next()
        do {
            try loop.execute {
                ServerConnection.open(Socket(takingOwnershipOf: fd), id: id, peer: nil, context: context, loop: loop)
            }
        } catch {
            // The group has stopped: nothing will serve the socket.
            Socket(takingOwnershipOf: fd).close()
            context.connectionEnded(from: nil)
        }
    }

    /// Current connection, stream and request counts; `openConnections` drops when a
    /// served socket's connection has ended.
    public var metrics: TransportMetrics { context.counters.snapshot }
}
