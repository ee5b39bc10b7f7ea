/// One accepted connection: TLS, protocol detection, timeouts, then an HTTP session.
///
/// Loop-confined. It keeps itself alive through its loop's `ConnectionRegistry` until
/// the byte stream closes.
final class ServerConnection: ByteStreamDelegate {
    /// The HTTP/2 client connection preface (RFC 9113 section 3.4).
    static let preface: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    /// Enough of the preface for an HTTP/2-only server to tell HTTP/2: no HTTP/1.x method is
    /// `PRI`, so once these bytes match, the rest is HTTP/2's to judge, under its preface
    /// time limit. A server that also speaks HTTP/1.1 waits for the whole preface.
    static let http2OnlySniffLength = 4

    let id: UInt64
    let stream: ByteStream
    let context: ServerContext
    let remoteAddress: SocketAddress?
    private var session: ServerSession?
    private var connection: HTTPConnection?
    private var sniffed: [UInt8] = []
    private var applicationProtocol: String?
    private var detecting = true
    private var handshakeTimer: ScheduledTask?
    /// The one timer of the connection: the HTTP/2 preface, idleness and request read deadlines.
    private var timer: ScheduledTask?
    /// When the TLS handshake (or, in cleartext, the accept) finished: the HTTP/2 preface
    /// deadline counts from here, through the sniffing of the first bytes.
    private var connectedAt = ContinuousClock.now

    init(id: UInt64, stream: ByteStream, context: ServerContext, remoteAddress: SocketAddress?) {
        self.id = id
        self.stream = stream
        self.context = context
        self.remoteAddress = remoteAddress
    }

    func start() {
        context.registry(for: stream.eventLoop)?.connections[ObjectIdentifier(self)] = self
        stream.delegate = self
        handshakeTimer = stream.eventLoop.schedule(after: context.configuration.handshakeTimeout) { [weak self] in
            self?.stream.close(error: .protocolViolation("handshake or HTTP preface not finished in time"))
        }
        do {
            try stream.activate()
        } catch {
            stream.close(error: error)
        }
    }

    func streamDidConnect(_ stream: ByteStream, applicationProtocol: String?) {
        self.applicationProtocol = applicationProtocol
        connectedAt = .now
        switch applicationProtocol {
        case "h2": startSession(.http2)
        case "http/1.1": startSession(.http1_1)
        // No ALPN: tell HTTP/2 from HTTP/1.1 by the first bytes. An HTTP/2-only server sniffs
        // too, so that an HTTP/1.x client is told in its own protocol (`http2Only`).
        default: break
        }
    }

    func stream(_ stream: ByteStream, didRead bytes: UnsafeRawBufferPointer) {
        if let session {
            session.receive(bytes)
            return
        }
        sniffed.append(contentsOf: bytes)
        let needed = context.configuration.acceptsHTTP1 ? Self.preface.count : Self.http2OnlySniffLength
        let checked = min(sniffed.count, needed)
        if !sniffed[..<checked].elementsEqual(Self.preface[..<checked]) {
            startSession(.http1_1)
        } else if sniffed.count >= needed {
            startSession(.http2)
        }
    }

    private func startSession(_ version: HTTPVersion) {
        handshakeTimer?.cancel()
        handshakeTimer = nil
        detecting = false
        let connection = HTTPConnection(
            id: id, remoteAddress: remoteAddress, localAddress: stream.socket.localAddress(),
            isSecure: stream.tls != nil, applicationProtocol: applicationProtocol, version: version,
            peerCertificate: stream.tls?.peerCertificate, eventLoop: stream.eventLoop)
        self.connection = connection
        let session: ServerSession
        switch version {
        case .http2:
            guard let h2 = HTTP2ServerSession(stream: stream, connection: connection, context: context) else {
                stream.close(error: .protocolViolation("cannot create an HTTP/2 session"))
                return
            }
            session = h2
        case .http1_1:
            session = HTTP1ServerSession(stream: stream, connection: connection, context: context)
        }
        self.session = session
        connection.controller = session
        context.handler.connectionOpened(connection)
        if context.isShuttingDown.load(ordering: .acquiring) { session.beginGracefulShutdown() }
        let configuration = context.configuration
        var first = min(configuration.idleTimeout, configuration.requestReadTimeout, configuration.requestHeadersTimeout)
        if version == .http2 {
            let prefaceDue = connectedAt + configuration.connectionPrefaceTimeout
            first = min(first, max(ContinuousClock.now.duration(to: prefaceDue), .milliseconds(1)))
        }
        armTimer(after: first)
        if !sniffed.isEmpty {
            let buffered = sniffed
            sniffed = []
            buffered.withUnsafeBytes { session.receive($0) }
        }
    }

    /// Checks lazily, with one timer per connection and none per request: each check
    /// re-arms it for the next thing that can come due, and at the latest after the shorter
    /// of `requestHeadersTimeout` and `requestReadTimeout`, so a request that begins after a
    /// check is checked again by its deadline. A read costs no timer operation: activity is
    /// a clock value the check reads.
    private func armTimer(after delay: Duration) {
        timer = stream.eventLoop.schedule(after: delay) { [weak self] in self?.check() }
    }

    /// Closes an HTTP/2 connection whose preface and first SETTINGS did not come in time,
    /// answers requests past their read deadlines, closes an idle connection, and re-arms.
    private func check() {
        guard !stream.isClosed, let session else { return }
        let configuration = context.configuration
        let now = ContinuousClock.now
        let prefaceDeadline = connectedAt + configuration.connectionPrefaceTimeout
        if session.awaitsClientPreface, prefaceDeadline <= now {
            context.counters.prefaceTimeouts.wrappingAdd(1, ordering: .relaxed)
            let reason = "connection preface and SETTINGS not received within \(configuration.connectionPrefaceTimeout)"
            session.sendGoAway(errorCode: .noError, debugData: Array(reason.utf8))
            stream.closeAfterFlush()
            return
        }
        if let deadline = session.nextRequestDeadline, deadline <= now {
            session.expireRequests(dueBy: now)
            if stream.isClosed { return }
        }
        let timeout = configuration.idleTimeout
        let quiet = stream.lastActivity.duration(to: now)
        if !session.hasOpenStreams && quiet >= Self.quietBeforeRelease { session.connectionWentQuiet() }
        if quiet >= timeout && !session.hasOpenStreams {
            session.sendGoAway(errorCode: .noError, debugData: configuration.idleGoAwayDebugData)
            stream.closeAfterFlush()
            return
        }
        var delay = min(max(timeout - quiet, .milliseconds(100)), configuration.requestReadTimeout,
                        configuration.requestHeadersTimeout)
        var next = session.nextRequestDeadline
        if session.awaitsClientPreface { next = min(next ?? prefaceDeadline, prefaceDeadline) }
        if let next { delay = min(delay, max(now.duration(to: next), .milliseconds(1))) }
        armTimer(after: delay)
    }

    /// How long a connection must have been without traffic before its session lets go of
    /// its caches (checked by the connection's timer, so within a timer period after it).
    static let quietBeforeRelease = Duration.seconds(1)

    /// What this connection holds (see ``ConnectionMemory``).
    var memory: ConnectionMemory {
        var memory = (session as? HTTP2ServerSession)?.memory ?? ConnectionMemory()
        memory.buffers += ConnectionMemory.size(of: sniffed) + stream.outputBufferCapacity
        var objects: [AnyObject] = [self, stream, stream.socket]
        if let tls = stream.tls { objects.append(tls) }
        if let connection { objects.append(connection) }
        if let timer { objects.append(timer) }
        if let handshakeTimer { objects.append(handshakeTimer) }
        if let session, !(session is HTTP2ServerSession) { objects.append(session) }
        for object in objects { memory.objects += ConnectionMemory.size(of: object) }
        return memory
    }

    func beginGracefulShutdown() {
        if let session {
            session.beginGracefulShutdown()
        } else {
            stream.close(error: .shuttingDown)
        }
    }

    /// The shutdown's grace period is over: every request still unanswered gets the handler's
    /// answer to `.shuttingDown`, then the connection closes once that is written.
    func finishShutdown() {
        guard let session else {
            stream.close(error: .shuttingDown)
            return
        }
        session.refuseUnansweredRequests()
        if !stream.isClosed {
            stream.closeAfterFlush()
            stream.flush()
        }
    }

    func streamDidDrain(_ stream: ByteStream) {
        session?.didDrain()
    }

    func streamDidClose(_ stream: ByteStream, error: TransportError?) {
        handshakeTimer?.cancel()
        timer?.cancel()
        session?.connectionDidClose()
        if let connection {
            connection.controller = nil
            context.handler.connectionClosed(connection)
        }
        session = nil
        context.counters.recordHeldOutput(stream.peakPendingOutput)
        context.connectionEnded(from: remoteAddress)
        context.registry(for: stream.eventLoop)?.connections[ObjectIdentifier(self)] = nil
    }
}
