internal import SystemSeam

/// Receives what a `ByteStream` reads, and hears when it ends. Loop-confined.
protocol ByteStreamDelegate: AnyObject {
    /// The TLS handshake (if any) finished; `applicationProtocol` is the ALPN result.
    func streamDidConnect(_ stream: ByteStream, applicationProtocol: String?)
    /// New bytes arrived. Output queued with `enqueue` is flushed when this returns.
    func stream(_ stream: ByteStream, didRead bytes: UnsafeRawBufferPointer)
    /// Every queued byte reached the socket.
    func streamDidDrain(_ stream: ByteStream)
    /// The stream closed; called exactly once.
    func streamDidClose(_ stream: ByteStream, error: TransportError?)
}

/// A non-blocking socket, optionally under TLS, with a write buffer. Loop-confined.
///
/// This is the piece the server and client connections share: it handles readiness,
/// the handshake, partial writes and closing, and hands bytes to its delegate.
final class ByteStream: Selectable {
    let socket: Socket
    let tls: TLSConnection?
    let eventLoop: EventLoop
    weak var delegate: ByteStreamDelegate?

    private var outbound: [UInt8] = []
    private var outboundOffset = 0
    private var wantsWrite = false
    /// Output waits past ``outputPauseThreshold`` because the peer does not read it: no
    /// more input is read until it has gone (back-pressure).
    private var outputBlocked = false
    /// The most output this stream has held waiting for the peer, for the per-connection bound.
    private(set) var peakPendingOutput = 0
    private var drainTimer: ScheduledTask?
    private var handshaking: Bool
    private var closeWhenDrained = false
    private var inReadCallback = false
    /// Outstanding `pauseReading()` calls; the stream reads only while this is 0.
    private var readPauses = 0
    private(set) var isClosed = false
    /// When the stream last read or wrote, for idle timeouts.
    private(set) var lastActivity = ContinuousClock.now

    init(socket: Socket, tls: TLSConnection?, eventLoop: EventLoop) {
        self.socket = socket
        self.tls = tls
        self.eventLoop = eventLoop
        self.handshaking = tls != nil
    }

    /// Registers with the loop and starts the handshake, if any. Call on the loop.
    func activate(connecting: Bool = false) throws(TransportError) {
        try eventLoop.register(self, fd: socket.fd, interest: connecting ? [.read, .write] : .read)
        wantsWrite = connecting
        if !connecting {
            if handshaking { continueHandshake() } else { delegate?.streamDidConnect(self, applicationProtocol: nil) }
        }
    }

    var hasPendingOutput: Bool { outboundOffset < outbound.count }

    /// Bytes queued and not yet taken by the socket.
    var pendingOutputCount: Int { outbound.count - outboundOffset }

    /// Queued output at which the stream stops reading until the peer has taken all of it.
    ///
    /// A peer that sends and does not read would otherwise make the queue grow with every
    /// answer and acknowledgement. Past this, its further bytes wait in the kernel, whose
    /// full buffers then stop it (TCP flow control); one read adds at most what a read of
    /// `EventLoop.readBuffer`'s size produces.
    static let outputPauseThreshold = 64 * 1024

    /// Output capacity a quiet connection keeps: room for a few small answers.
    static let idleOutputCapacity = 1024

    /// Gives back the output buffer a burst grew; called once the connection has been quiet.
    func releaseIdleOutputBuffer() {
        guard !hasPendingOutput, outbound.capacity > Self.idleOutputCapacity else { return }
        outbound = []
        outboundOffset = 0
    }

    /// The bytes set aside for queued output.
    var outputBufferCapacity: Int { ConnectionMemory.size(of: outbound) }

    /// How long a closing stream waits for the peer to take its last output before closing
    /// anyway: a peer that reads nothing cannot hold a closing connection.
    static let closeDrainTimeout = Duration.seconds(10)

    /// Queues bytes for writing; `flush()` sends them. Dropped once the stream is lingering.
    func enqueue(_ bytes: UnsafeRawBufferPointer) {
        guard !lingering else { return }
        outbound.append(contentsOf: bytes)
    }

    func enqueue(_ bytes: [UInt8]) {
        guard !lingering else { return }
        outbound.append(contentsOf: bytes)
    }

    /// Queues what `write` appends, written straight into the queue: a response head built
    /// here needs no buffer of its own, nor a copy out of it.
    func enqueue(writing write: (inout [UInt8]) -> Void) {
        guard !lingering else { return }
        write(&outbound)
    }

    /// Writes as much queued output as the socket takes now; waits for writability for the rest.
    func flush() {
        // Before a client connect completes, writing is impossible and dropping write
        // interest here would mean never hearing that the connect finished. While lingering,
        // our side has ended: a write would fail and close at once, sending the RST lingering avoids.
        guard !isClosed, !lingering, !handshaking, connected else { return }
        while outboundOffset < outbound.count {
            let result = outbound.withUnsafeBytes { buffer in
                let pending = UnsafeRawBufferPointer(rebasing: buffer[outboundOffset...])
                return tls?.write(pending) ?? socket.write(pending)
            }
            switch result {
            case let .bytes(count):
                outboundOffset += count
                lastActivity = .now
            case .wouldBlock:
                let pending = pendingOutputCount
                if pending > peakPendingOutput { peakPendingOutput = pending }
                if pending >= Self.outputPauseThreshold, !outputBlocked {
                    outputBlocked = true
                    wantsWrite = true
                    eventLoop.reregister(fd: socket.fd, interest: interest)
                } else {
                    setWantsWrite(true)
                }
                return
            case .closed:
                close(error: nil)
                return
            case let .failed(code):
                close(error: .system(call: "write", errno: code))
                return
            }
        }
        // Room for a busy connection's usual output is kept; more (a burst, a large HTTP/1.1
        // body) is given back, so an idle connection does not hold it.
        outbound.removeAll(keepingCapacity: outbound.capacity <= 2 * Self.outputPauseThreshold)
        outboundOffset = 0
        let wasBlocked = outputBlocked
        outputBlocked = false
        if wasBlocked {
            wantsWrite = false
            eventLoop.reregister(fd: socket.fd, interest: interest)
        } else {
            setWantsWrite(false)
        }
        if closeWhenDrained {
            beginLingeringClose()
        } else {
            delegate?.streamDidDrain(self)
            // Input TLS decrypted before the pause, which the selector cannot see.
            if wasBlocked, !isClosed, !inReadCallback, tls?.hasBufferedInput ?? false { readReady() }
        }
    }

    /// Closes once everything queued has been written, or after ``closeDrainTimeout`` if the
    /// peer does not take it. From now on input is read and dropped, never handed on: a
    /// session that decided to close (after a fatal protocol error, say) serves nothing more.
    func closeAfterFlush() {
        guard !closeWhenDrained else { return }
        closeWhenDrained = true
        if !hasPendingOutput && !inReadCallback {
            beginLingeringClose()
        } else if !isClosed {
            drainTimer = eventLoop.schedule(after: Self.closeDrainTimeout) { [weak self] in self?.close(error: nil) }
        }
    }

    /// How long a closing stream keeps reading what the peer still sends.
    static let lingerTimeout = Duration.seconds(1)
    private var lingering = false
    private var lingerTimer: ScheduledTask?

    /// Ends our side (FIN) but keeps reading, and discarding, until the peer closes or
    /// `lingerTimeout` passes.
    ///
    /// Closing a socket that still has unread input makes the kernel send RST, and an RST can
    /// destroy data the peer has not read yet: a GOAWAY with APNs' `{"reason":…}`, or the
    /// last response. Lingering lets the final bytes arrive.
    ///
    /// Output produced after this point (a second GOAWAY, say) is dropped, not written: after
    /// FIN (and TLS close_notify) the write would fail, and a failed write closes the socket at
    /// once with the peer's input unread, which is exactly the RST this avoids.
    private func beginLingeringClose() {
        guard !isClosed, !lingering else { return }
        lingering = true
        drainTimer?.cancel()
        drainTimer = nil
        if !handshaking && connected { tls?.shutdown() }
        _ = SystemSeam.shutdown(socket.fd, Int32(SHUT_WR))
        setWantsWrite(false)
        lingerUntil(ContinuousClock.now + Self.closeDrainTimeout)
    }

    /// Closes after `lingerTimeout`, or later while the kernel still holds output the peer
    /// has not acknowledged (up to `deadline`): closing with the peer's input unread sends RST,
    /// which would throw that output (the GOAWAY saying why) away before the peer reads it.
    private func lingerUntil(_ deadline: ContinuousClock.Instant) {
        lingerTimer = eventLoop.schedule(after: Self.lingerTimeout) { [weak self] in
            guard let self else { return }
            if socket.unacknowledgedOutputCount() > 0, ContinuousClock.now < deadline {
                lingerUntil(deadline)
            } else {
                close(error: nil)
            }
        }
    }

    /// Reads and drops whatever the peer still sends while closing; closes at its EOF.
    private func discardWhileLingering() {
        let buffer = eventLoop.readBuffer
        while true {
            switch socket.read(into: buffer) {
            case .bytes: continue
            case .wouldBlock: return
            case .closed, .failed: close(error: nil); return
            }
        }
    }

    private func setWantsWrite(_ wanted: Bool) {
        guard wanted != wantsWrite, !isClosed else { return }
        wantsWrite = wanted
        eventLoop.reregister(fd: socket.fd, interest: interest)
    }

    /// What the loop watches for: reads unless paused or blocked on output (a closing
    /// stream always reads, to discard), writes while output waits.
    private var interest: SelectorInterest {
        var interest: SelectorInterest = (readPauses == 0 && !outputBlocked) || lingering || closeWhenDrained ? .read : []
        if wantsWrite { interest.insert(.write) }
        return interest
    }

    /// Whether reading is paused (see ``pauseReading()``).
    var isReadingPaused: Bool { (readPauses > 0 || outputBlocked) && !lingering && !closeWhenDrained }

    /// Stops reading from the socket until ``resumeReading()`` has been called as many
    /// times. Bytes already read are still handled, and output still goes out; the peer's
    /// further bytes wait in the kernel, whose full buffers then stop the peer (TCP flow
    /// control). For a server that must not take more work than it can finish.
    func pauseReading() {
        guard !isClosed else { return }
        readPauses += 1
        if readPauses == 1 { eventLoop.reregister(fd: socket.fd, interest: interest) }
    }

    /// Undoes one ``pauseReading()``; the last one reads again, beginning with what TLS
    /// decrypted before the pause (which the selector cannot see).
    func resumeReading() {
        guard readPauses > 0 else { return }
        readPauses -= 1
        guard readPauses == 0, !isClosed, !outputBlocked else { return }
        eventLoop.reregister(fd: socket.fd, interest: interest)
        if !inReadCallback, tls?.hasBufferedInput ?? false { readReady() }
    }

    private func continueHandshake() {
        guard let tls else { return }
        switch tls.handshake() {
        case .complete:
            handshaking = false
            setWantsWrite(false)
            lastActivity = .now
            delegate?.streamDidConnect(self, applicationProtocol: tls.negotiatedProtocol)
            if !isClosed { readReady() }
        case .wantRead:
            setWantsWrite(false)
        case .wantWrite:
            setWantsWrite(true)
        case let .failed(error):
            close(error: error)
        }
    }

    func readReady() {
        guard !isClosed else { return }
        if lingering || (closeWhenDrained && !handshaking && connected) {
            discardWhileLingering()
            return
        }
        if !connected {
            // A failed connect reports readable as well as writable; reading would turn
            // ECONNREFUSED into a misleading read error, so settle the connect first.
            finishConnect()
            return
        }
        if handshaking {
            continueHandshake()
            return
        }
        if isReadingPaused { return }
        let buffer = eventLoop.readBuffer
        inReadCallback = true
        defer {
            inReadCallback = false
            if !isClosed { flush() }
        }
        // Read until the socket is empty (the level-triggered selector would call again
        // anyway, but TLS may hold decrypted bytes that the selector cannot see).
        for _ in 0..<16 {
            let result = tls?.read(into: buffer) ?? socket.read(into: buffer)
            switch result {
            case let .bytes(count):
                lastActivity = .now
                delegate?.stream(self, didRead: UnsafeRawBufferPointer(rebasing: buffer[..<count]))
                if isClosed || closeWhenDrained || isReadingPaused { return }
                if pendingOutputCount >= Self.outputPauseThreshold {
                    // Write before reading more: a peer that does not read blocks here.
                    flush()
                    if isClosed || outputBlocked || closeWhenDrained { return }
                }
                if count < buffer.count && !(tls?.hasBufferedInput ?? false) { return }
            case .wouldBlock:
                return
            case .closed:
                close(error: nil)
                return
            case let .failed(code):
                close(error: .system(call: "read", errno: code))
                return
            }
        }
    }

    func writeReady() {
        guard !isClosed else { return }
        if !connected {
            finishConnect()
        } else if handshaking {
            continueHandshake()
        } else {
            flush()
        }
    }

    /// For client streams: false until the non-blocking connect finishes.
    private var connected = true

    /// Marks a client stream whose `connect(2)` is still in progress.
    func markConnecting() {
        connected = false
        handshaking = false
    }

    private func finishConnect() {
        if let error = connectError() {
            close(error: error)
            return
        }
        connected = true
        if tls != nil {
            handshaking = true
            continueHandshake()
        } else {
            setWantsWrite(false)
            delegate?.streamDidConnect(self, applicationProtocol: nil)
            if !isClosed { flush() }
        }
    }

    private func connectError() -> TransportError? {
        let code = socket.pendingError()
        return code == 0 ? nil : .system(call: "connect", errno: code)
    }

    func hangupReady() {
        if !connected {
            close(error: connectError() ?? .system(call: "connect", errno: ECONNREFUSED))
            return
        }
        readReady()
        if !isClosed { close(error: nil) }
    }

    func loopDidStop() {
        close(error: .eventLoopStopped(eventLoop.name))
    }

    /// Closes now, dropping unwritten output. Idempotent.
    func close(error: TransportError?, abort: Bool = false) {
        guard !isClosed else { return }
        isClosed = true
        lingerTimer?.cancel()
        drainTimer?.cancel()
        eventLoop.deregister(fd: socket.fd)
        if abort { socket.setLingerZero() } else if !handshaking && connected && !lingering { tls?.shutdown() }
        socket.close()
        outbound = []
        delegate?.streamDidClose(self, error: error)
    }
}
