import Synchronization

/// What every connection of one server shares: configuration, handler, TLS, counters.
final class ServerContext: Sendable {
    let configuration: HTTPServerConfiguration
    let handler: any HTTPServerHandler
    let tlsContext: TLSContext?
    let counters = TransportCounters()
    let isShuttingDown = Atomic<Bool>(false)
    let nextConnectionID = Atomic<UInt64>(1)
    /// Open connections per client, when `maxConnectionsPerSource` is set.
    let sources: SourceConnectionTable?
    /// Open connections per loop, so shutdown can reach each on its own thread.
    let registries: [ObjectIdentifier: ConnectionRegistry]

    init(configuration: HTTPServerConfiguration, handler: any HTTPServerHandler, group: EventLoopGroup) throws(TransportError) {
        self.configuration = configuration
        self.handler = handler
        sources = configuration.maxConnectionsPerSource.map(SourceConnectionTable.init(limit:))
        tlsContext = try configuration.tls.map { (tls) throws(TransportError) in
            var tls = tls
            if !configuration.acceptsHTTP1 { tls.applicationProtocols.removeAll { $0 != "h2" } }
            return try TLSContext(configuration: tls, role: .server)
        }
        var registries: [ObjectIdentifier: ConnectionRegistry] = [:]
        for loop in group.loops { registries[ObjectIdentifier(loop)] = ConnectionRegistry() }
        self.registries = registries
    }

    func registry(for loop: EventLoop) -> ConnectionRegistry? { registries[ObjectIdentifier(loop)] }

    /// Forgets a connection the listener admitted, from whichever loop it ended on.
    func connectionEnded(from peer: SocketAddress?) {
        let open = counters.openConnections.wrappingSubtract(1, ordering: .relaxed).newValue
        if let sources, let peer { sources.release(ClientSource(peer)) }
        memoryTrim.connectionEnded(leaving: open, counters: counters)
    }

    let memoryTrim = BurstMemoryTrim()
}

/// The server connections living on one loop. Touched only on that loop.
final class ConnectionRegistry: @unchecked Sendable {
    // Unchecked: loop-confined; each registry is used only on its own loop's thread.
    var connections: [ObjectIdentifier: ServerConnection] = [:]
    /// The HTTP/2 sessions' scratch space for response header blocks: a block is laid out
    /// and submitted (nghttp2 copies it) in one call, so one builder serves every session on
    /// the loop, and an idle connection holds none.
    let headerBlock = HeaderBlockBuilder()
}
