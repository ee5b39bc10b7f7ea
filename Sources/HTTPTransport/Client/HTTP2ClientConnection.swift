import Synchronization
internal import CNGHTTP2
internal import SystemSeam

/// The one connection behind an `HTTP2Client`: socket, TLS, nghttp2 session and streams.
///
/// Callers hand work over through `shared`, a Mutex; everything else lives on
/// `eventLoop`. Requests handed over together are drained in one loop task, submitted
/// to nghttp2, and written with one `mem_send` pass and one flush.
final class HTTP2ClientConnection: ByteStreamDelegate, @unchecked Sendable {
    // Unchecked: `shared` and `outstanding` are synchronized; every other `var` is
    // touched only on `eventLoop`.

    /// What callers and the loop exchange.
    struct Shared {
        var state: HTTP2ClientState = .idle
        var lastGoAway: HTTP2GoAway?
        /// The server's SETTINGS_MAX_CONCURRENT_STREAMS as last announced; nil until its first SETTINGS frame.
        var peerMaxConcurrentStreams: Int?
        var pingWaiters: [HTTP2PingWaiter] = []
        /// What new requests fail with once the state is `.goingAway` or `.closed`.
        var terminalError: HTTPClientError = .closed
        var inbox: [(HTTP2ClientStream, HTTP2ClientWaiter)] = []
        var cancellations: [HTTP2ClientStream] = []
        var connectWaiters: [CheckedContinuation<Result<Void, HTTPClientError>, Never>] = []
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
        var closeRequested = false
        var drainScheduled = false

        var rejection: HTTPClientError? {
            state == .goingAway || state == .closed ? terminalError : nil
        }
    }

    let configuration: HTTP2ClientConfiguration
    let endpoint: HTTP2ClientEndpoint
    let eventLoop: EventLoop
    let shared = Mutex(Shared())
    /// Requests handed to the loop whose callers have not been resumed yet.
    let outstanding = Atomic<Int>(0)

    private let authority: String
    private let scheme: String
    private var phase: HTTP2ClientState = .idle
    private var terminalError: HTTPClientError = .closed
    private var goAway: HTTP2GoAway?
    /// The GOAWAY our nghttp2 sent with an error code: the server broke HTTP/2 in a way the
    /// library handles itself, ending the session without failing `mem_recv`.
    private var sentGoAway: HTTP2GoAway?
    private var byteStream: ByteStream?
    private var session: OpaquePointer?
    private var streams: [Int32: HTTP2ClientStream] = [:]
    /// Between the socket and nghttp2: the client announces no SETTINGS_HEADER_TABLE_SIZE, so
    /// the server's encoder keeps to HPACK's default 4,096 bytes.
    private var oversizedValues = OversizedValueFilter(tableSizeLimit: 4_096, prefaceLength: 0)
    private let headerBlock: HeaderBlockBuilder
    /// Requests that arrived before the connection was ready; finished ones are skipped.
    private var awaitingConnection: [HTTP2ClientStream] = []
    /// Requests the server refused unprocessed, sent again after the current read.
    private var refused: [HTTP2ClientStream] = []
    private var connectWaiters: [CheckedContinuation<Result<Void, HTTPClientError>, Never>] = []
    private var connectTimer: ScheduledTask?
    /// PINGs sent (or waiting for the connection), answered in order by the server's ACKs.
    private var pingsAwaitingConnection: [HTTP2PingWaiter] = []
    private var pingsInFlight: [HTTP2ClientPing] = []
    /// Numbers the PINGs sent, so a timer knows whether its PING is still unanswered.
    private var pingsSent = 0
    /// The inbox's other buffer: swapped in at each drain, so neither is regrown from empty
    /// for every batch of requests.
    private var spareInbox: [(HTTP2ClientStream, HTTP2ClientWaiter)] = []
    /// Requests on the default timeout, and the one timer for the oldest of them.
    private var deadlines = HTTP2ClientDeadlines()
    private var deadlineTimer: ScheduledTask?

    init(endpoint: HTTP2ClientEndpoint, eventLoop: EventLoop) {
        let configuration = endpoint.configuration
        self.configuration = configuration
        self.endpoint = endpoint
        headerBlock = HeaderBlockBuilder(unindexedNames: configuration.unindexedFieldNames)
        self.eventLoop = eventLoop
        authority = configuration.defaultAuthority
        scheme = configuration.tls == nil ? "http" : "https"
    }

    deinit {
        if let session { nghttp2_session_del(session) }
    }

    // MARK: Hand-over from callers (any thread)

    /// Hands a request to the loop, or returns why it cannot be sent.
    func enqueue(_ stream: HTTP2ClientStream, waiter: HTTP2ClientWaiter) -> HTTPClientError? {
        let (rejection, schedule) = shared.withLock { shared -> (HTTPClientError?, Bool) in
            if let rejection = shared.rejection { return (rejection, false) }
            shared.inbox.append((stream, waiter))
            outstanding.wrappingAdd(1, ordering: .relaxed)
            return (nil, Self.claimDrain(&shared))
        }
        if schedule { scheduleDrain() }
        return rejection
    }

    /// Asks the loop to abandon `stream`, whether or not it has reached the loop yet.
    func cancel(_ stream: HTTP2ClientStream) {
        let schedule = shared.withLock { shared in
            shared.cancellations.append(stream)
            return Self.claimDrain(&shared)
        }
        if schedule { scheduleDrain() }
    }

    /// Connects if not connected yet; `waiter` hears when the connection is ready or failed.
    func connect(_ waiter: CheckedContinuation<Result<Void, HTTPClientError>, Never>) {
        enum Outcome { case ready, failed(HTTPClientError), scheduled(Bool) }
        let outcome = shared.withLock { shared -> Outcome in
            if shared.state == .active { return .ready }
            if let rejection = shared.rejection { return .failed(rejection) }
            shared.connectWaiters.append(waiter)
            return .scheduled(Self.claimDrain(&shared))
        }
        switch outcome {
        case .ready: waiter.resume(returning: .success(()))
        case let .failed(error): waiter.resume(returning: .failure(error))
        case let .scheduled(schedule): if schedule { scheduleDrain() }
        }
    }

    /// Sends a PING once connected; `waiter` hears the round-trip time or why it failed.
    func ping(_ waiter: @escaping HTTP2PingWaiter) {
        let (rejection, schedule) = shared.withLock { shared -> (HTTPClientError?, Bool) in
            if let rejection = shared.rejection { return (rejection, false) }
            shared.pingWaiters.append(waiter)
            return (nil, Self.claimDrain(&shared))
        }
        if let rejection { waiter(.failure(rejection)) }
        if schedule { scheduleDrain() }
    }

    /// Fails everything pending with `.closed`, says GOAWAY, closes; `waiter` hears when done.
    ///
    /// New requests are refused from the moment this is called.
    func requestClose(_ waiter: CheckedContinuation<Void, Never>?) {
        let schedule = shared.withLock { shared in
            shared.closeRequested = true
            shared.state = .closed
            shared.terminalError = .closed
            if let waiter { shared.closeWaiters.append(waiter) }
            return Self.claimDrain(&shared)
        }
        if schedule { scheduleDrain() }
    }

    private static func claimDrain(_ shared: inout Shared) -> Bool {
        guard !shared.drainScheduled else { return false }
        shared.drainScheduled = true
        return true
    }

    private func scheduleDrain() {
        do {
            try eventLoop.execute { [self] in self.drain() }
        } catch {
            refuseHandedOver()
        }
    }

    /// The loop has stopped, so no drain will come: fails what callers handed over and ends
    /// the client, so that later calls fail at once. What the loop had already taken was
    /// failed when it stopped (the byte stream's `loopDidStop`, or the name resolution's
    /// refused completion).
    private func refuseHandedOver() {
        let reason = HTTPClientError.eventLoopStopped(eventLoop.name)
        let (inbox, waiters, closeWaiters, pings) = shared.withLock { shared in
            // Whoever hands over next tries the loop again, and is refused in turn.
            shared.drainScheduled = false
            shared.state = .closed
            if !shared.closeRequested { shared.terminalError = reason }
            defer {
                shared.inbox = []
                shared.cancellations = []
                shared.connectWaiters = []
                shared.closeWaiters = []
                shared.pingWaiters = []
            }
            return (shared.inbox, shared.connectWaiters, shared.closeWaiters, shared.pingWaiters)
        }
        for (_, waiter) in inbox {
            outstanding.wrappingSubtract(1, ordering: .relaxed)
            waiter.deliver(.failure(reason))
        }
        for waiter in waiters { waiter.resume(returning: .failure(reason)) }
        for waiter in pings { waiter(.failure(reason)) }
        for waiter in closeWaiters { waiter.resume() }
    }

    private func publish(_ update: (inout Shared) -> Void) {
        shared.withLock { update(&$0) }
    }

    // MARK: Loop side

    /// Takes everything callers handed over since the last drain, then writes once.
    private func drain() {
        var inbox = spareInbox
        spareInbox = []
        let (cancellations, waiters, closeWaiters, closeRequested, pings) = shared.withLock { shared in
            shared.drainScheduled = false
            swap(&inbox, &shared.inbox)
            defer {
                shared.cancellations = []
                shared.connectWaiters = []
                shared.closeWaiters = []
                shared.pingWaiters = []
            }
            return (shared.cancellations, shared.connectWaiters, shared.closeWaiters, shared.closeRequested, shared.pingWaiters)
        }
        if closeRequested { closeByClient() }
        for waiter in waiters { addConnectWaiter(waiter) }
        for waiter in pings { addPing(waiter) }
        for (stream, waiter) in inbox { accept(stream, waiter) }
        inbox.removeAll(keepingCapacity: true)
        spareInbox = inbox
        for stream in cancellations {
            stream.isCancelled = true
            if stream.isAccepted { abort(stream, with: .cancelled) }
        }
        sendNow()
        for waiter in closeWaiters { waiter.resume() }
    }

    private func addConnectWaiter(_ waiter: CheckedContinuation<Result<Void, HTTPClientError>, Never>) {
        if phase == .idle { startConnecting() }
        switch phase {
        case .connecting: connectWaiters.append(waiter)
        case .active: waiter.resume(returning: .success(()))
        case .idle, .goingAway, .closed: waiter.resume(returning: .failure(terminalError))
        }
    }

    private func addPing(_ waiter: @escaping HTTP2PingWaiter) {
        if phase == .idle { startConnecting() }
        switch phase {
        case .connecting: pingsAwaitingConnection.append(waiter)
        case .active: submitPing(waiter)
        case .idle, .goingAway, .closed: waiter(.failure(terminalError))
        }
    }

    private func submitPing(_ waiter: @escaping HTTP2PingWaiter) {
        guard let session, nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil) == 0 else {
            waiter(.failure(.protocolError("nghttp2 refused to queue a PING")))
            return
        }
        pingsSent += 1
        let number = pingsSent
        var timer: ScheduledTask?
        if let timeout = configuration.pingTimeout {
            timer = eventLoop.schedule(after: timeout) { [weak self] in
                self?.pingTimedOut(number: number, after: timeout)
            }
        }
        pingsInFlight.append(HTTP2ClientPing(number: number, waiter: waiter, sentAt: .now, timer: timer))
    }

    /// A server that does not acknowledge a PING in time is gone (a black-holed connection
    /// answers nothing): every PING fails with the timeout, and the connection is closed as
    /// lost, so its requests fail instead of waiting out their timeouts and new ones go elsewhere.
    private func pingTimedOut(number: Int, after timeout: Duration) {
        guard phase != .closed, pingsInFlight.contains(where: { $0.number == number }) else { return }
        let unanswered = pingsInFlight
        pingsInFlight = []
        for ping in unanswered {
            ping.timer?.cancel()
            ping.waiter(.failure(.timedOut(.ping, after: timeout)))
        }
        shutDown(reason: .connectionClosed(nil))
    }

    private func accept(_ stream: HTTP2ClientStream, _ waiter: HTTP2ClientWaiter) {
        stream.accept(waiter)
        if stream.isCancelled {
            complete(stream, .failure(.cancelled))
            return
        }
        if phase == .idle { startConnecting() }
        switch phase {
        case .connecting:
            armTimer(stream)
            awaitingConnection.append(stream)
        case .active:
            armTimer(stream)
            submit(stream)
        case .idle, .goingAway, .closed:
            complete(stream, .failure(terminalError))
        }
    }

    private func complete(_ stream: HTTP2ClientStream, _ result: Result<HTTPClientResponse, HTTPClientError>) {
        guard stream.isAccepted, !stream.isFinished else { return }
        // Count down before resuming, so a caller that checks right after its answer sees it.
        outstanding.wrappingSubtract(1, ordering: .relaxed)
        stream.finish(result)
    }

    private func armTimer(_ stream: HTTP2ClientStream) {
        guard let deadline = stream.deadline, let timeout = stream.timeout else { return }
        if stream.request.timeout == nil {
            // The connection's default timeout: one queue and one timer for all such requests.
            deadlines.append(stream)
            if deadlineTimer == nil { armDeadlineTimer(at: deadline) }
            return
        }
        let remaining = ContinuousClock.now.duration(to: deadline)
        stream.timer = eventLoop.schedule(after: max(remaining, .zero)) { [weak self] in
            guard let self else { return }
            self.abort(stream, with: .timedOut(.request, after: timeout))
            self.sendNow()
        }
    }

    private func armDeadlineTimer(at deadline: ContinuousClock.Instant) {
        deadlineTimer = eventLoop.schedule(after: max(ContinuousClock.now.duration(to: deadline), .zero)) { [weak self] in
            self?.expireDeadlines()
        }
    }

    /// Times out the default-timeout requests whose deadline has passed, then waits for the next.
    private func expireDeadlines() {
        deadlineTimer = nil
        let expired = deadlines.takeExpired(now: .now)
        for stream in expired {
            abort(stream, with: .timedOut(.request, after: stream.timeout ?? configuration.requestTimeout ?? .zero))
        }
        if !expired.isEmpty { sendNow() }
        if let next = deadlines.nextDeadline() { armDeadlineTimer(at: next) }
    }

    /// Fails `stream` now and resets it with CANCEL if the server knows it; the others go on.
    private func abort(_ stream: HTTP2ClientStream, with error: HTTPClientError) {
        guard !stream.isFinished else { return }
        // Streams still waiting for the connection or a retry stay in those lists and are
        // skipped there, so no list has to be searched here.
        if stream.streamID > 0, streams.removeValue(forKey: stream.streamID) != nil, let session {
            _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream.streamID,
                                          HTTP2ErrorCode.cancel.rawValue)
        }
        complete(stream, .failure(error))
    }

    // MARK: Connecting

    private func startConnecting() {
        phase = .connecting
        publish { if $0.state == .idle { $0.state = .connecting } }
        let timeout = configuration.connectTimeout
        connectTimer = eventLoop.schedule(after: timeout) { [weak self] in
            guard let self, self.phase == .connecting else { return }
            self.shutDown(reason: .timedOut(.connect, after: timeout))
        }
        endpoint.resolve(on: eventLoop) { [self] result in
            // The connect timer (or a close) may have ended the attempt while the name resolved.
            guard phase == .connecting else { return }
            switch result {
            case let .success(address): connect(to: address)
            case let .failure(.eventLoopStopped(name)): shutDown(reason: .eventLoopStopped(name))
            case let .failure(error): shutDown(reason: .connectFailed(error))
            }
        }
    }

    private func connect(to address: SocketAddress) {
        do throws(TransportError) {
            let socket = try Socket.makeTCP(for: address)
            socket.setNoDelay()
            let connected = address.withSockAddr { SystemSeam.connect(socket.fd, $0, $1) } == 0
            if !connected && errno != EINPROGRESS {
                throw .system(call: "connect", errno: errno)
            }
            let tls = try endpoint.tlsContext.map { (context) throws(TransportError) in
                try TLSConnection(context: context, fd: socket.fd, serverName: configuration.effectiveServerName)
            }
            let stream = ByteStream(socket: socket, tls: tls, eventLoop: eventLoop)
            stream.delegate = self
            byteStream = stream
            if !connected { stream.markConnecting() }
            try stream.activate(connecting: !connected)
        } catch {
            shutDown(reason: .connectFailed(error))
        }
    }

    func streamDidConnect(_ stream: ByteStream, applicationProtocol: String?) {
        connectTimer?.cancel()
        connectTimer = nil
        if configuration.tls != nil, configuration.negotiatesALPN, applicationProtocol != "h2" {
            shutDown(reason: .alpnNotNegotiated(selected: applicationProtocol))
            return
        }
        guard startSession() else {
            shutDown(reason: .protocolError("cannot create an nghttp2 client session (out of memory?)"))
            return
        }
        phase = .active
        publish { if $0.state == .connecting { $0.state = .active } }
        let waiters = connectWaiters
        connectWaiters = []
        for waiter in waiters { waiter.resume(returning: .success(())) }
        let waiting = awaitingConnection
        awaitingConnection = []
        for request in waiting where !request.isFinished { submit(request) }
        let pings = pingsAwaitingConnection
        pingsAwaitingConnection = []
        for waiter in pings { submitPing(waiter) }
        sendNow()
    }

    private func startSession() -> Bool {
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else { return false }
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, clientOnBeginHeaders)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, clientOnHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, clientOnDataChunk)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, clientOnFrameReceived)
        nghttp2_session_callbacks_set_on_frame_not_send_callback(callbacks, clientOnFrameNotSent)
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, clientOnFrameSent)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, clientOnStreamClose)

        var option: OpaquePointer?
        guard nghttp2_option_new(&option) == 0, let option else { return false }
        defer { nghttp2_option_del(option) }
        nghttp2_option_set_peer_max_concurrent_streams(
            option, UInt32(clamping: max(1, configuration.initialPeerMaxConcurrentStreams)))

        var created: OpaquePointer?
        let userData = Unmanaged.passUnretained(self).toOpaque()
        guard nghttp2_session_client_new2(&created, callbacks, userData, option) == 0, let created else { return false }
        session = created

        let window = min(max(configuration.initialWindowSize, 65_535), Int(c_nghttp2_max_window_size()))
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: UInt32(window)),
        ]
        _ = nghttp2_submit_settings(created, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
        // Many streams share the connection window: make it larger than one stream's.
        _ = nghttp2_session_set_local_window_size(created, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0,
                                                  Int32(clamping: min(window * 16, Int(c_nghttp2_max_window_size()))))
        return true
    }

    // MARK: Requests

    private func submit(_ stream: HTTP2ClientStream) {
        guard let session else {
            complete(stream, .failure(terminalError))
            return
        }
        let request = stream.request
        headerBlock.reset()
        headerBlock.appendTrusted(name: ":method", value: request.method)
        headerBlock.appendTrusted(name: ":scheme", value: scheme)
        headerBlock.appendTrusted(name: ":authority", value: request.authority ?? authority)
        headerBlock.appendTrusted(name: ":path", value: request.path)
        for field in request.headers { headerBlock.append(name: field.name, value: field.value) }
        let hasBody = !request.body.isEmpty
        if hasBody { headerBlock.appendTrusted(name: "content-length", value: String(request.body.count)) }
        let streamID = headerBlock.withPairs { pairs, count -> Int32 in
            guard hasBody else {
                return nghttp2_submit_request(session, nil, pairs, count, nil, nil)
            }
            var provider = nghttp2_data_provider()
            provider.read_callback = clientReadRequestBody
            return nghttp2_submit_request(session, nil, pairs, count, &provider, nil)
        }
        guard streamID > 0 else {
            complete(stream, .failure(.protocolError("nghttp2 refused the request: \(String(cString: nghttp2_strerror(streamID)))")))
            return
        }
        stream.streamID = streamID
        streams[streamID] = stream
    }

    /// Sends again the streams the server refused before processing them.
    private func resubmitRefused() {
        guard !refused.isEmpty else { return }
        let queued = refused
        refused = []
        for stream in queued where !stream.isFinished {
            if goAway != nil || phase != .active {
                complete(stream, .failure(terminalError))
            } else {
                submit(stream)
            }
        }
    }

    // MARK: I/O

    func stream(_ stream: ByteStream, didRead bytes: UnsafeRawBufferPointer) {
        guard let session else { return }
        var result = 0
        // A value nghttp2 cannot decode would be a COMPRESSION_ERROR, ending every request of
        // the connection: the filter makes it decodable, and its request alone fails, before
        // nghttp2 reads the block (the header callback then finds no stream and drops it).
        _ = oversizedValues.feed(bytes, rewritten: { rewrite in
            if let stream = streams[rewrite.streamID] { abort(stream, with: .responseHeaderTooLarge) }
        }) { input in
            result = nghttp2_session_mem_recv(session, input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count)
            return result >= 0
        }
        if result < 0 {
            let message = String(cString: nghttp2_strerror(Int32(clamping: result)))
            // nghttp2 queued a GOAWAY where it could: send it, then close.
            produceOutput()
            shutDown(reason: .protocolError("the server broke HTTP/2 (\(message))"), flushFirst: true)
            return
        }
        resubmitRefused()
        produceOutput()
    }

    func streamDidDrain(_ stream: ByteStream) {}

    func streamDidClose(_ stream: ByteStream, error: TransportError?) {
        let reason: HTTPClientError
        if phase == .connecting {
            switch error {
            case let .tls(message, entries)?: reason = .tlsHandshakeFailed(.tls(message, entries: entries))
            case let error?: reason = .connectFailed(error)
            case nil: reason = .connectFailed(.protocolViolation("the server closed the connection during setup"))
            }
        } else if case let .eventLoopStopped(name)? = error {
            reason = .eventLoopStopped(name)
        } else {
            reason = .connectionClosed(error)
        }
        shutDown(reason: reason)
    }

    /// Moves every frame nghttp2 has ready into the byte stream; closes once nghttp2 is done.
    private func produceOutput() {
        guard writeFrames(), let session else { return }
        if nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0 {
            // After GOAWAY with no stream left: nothing more can happen on this connection.
            let reason = sentGoAway.map { HTTPClientError.protocolError("the server broke HTTP/2; the client ended the connection with \($0)") }
            shutDown(reason: reason ?? .connectionClosed(nil), flushFirst: true)
        }
    }

    /// Moves every frame nghttp2 has ready into the byte stream; false if that failed.
    private func writeFrames() -> Bool {
        guard let session, let byteStream, !byteStream.isClosed else { return false }
        while true {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            if count < 0 {
                shutDown(reason: .protocolError("nghttp2 cannot send: \(String(cString: nghttp2_strerror(Int32(clamping: count))))"))
                return false
            }
            guard count > 0, let data else { return true }
            byteStream.enqueue(UnsafeRawBufferPointer(start: data, count: count))
        }
    }

    /// Produces output and writes it, for work done outside a read callback.
    private func sendNow() {
        produceOutput()
        if let byteStream, !byteStream.isClosed { byteStream.flush() }
    }

    // MARK: Closing

    private func closeByClient() {
        if let session, phase == .active || phase == .goingAway {
            _ = nghttp2_session_terminate_session(session, HTTP2ErrorCode.noError.rawValue)
            _ = writeFrames()
        }
        shutDown(reason: .closed, flushFirst: true)
    }

    /// Fails every pending request and connect with `reason`, then releases the connection.
    ///
    /// Never call from inside an nghttp2 callback: it deletes the session.
    private func shutDown(reason: HTTPClientError, flushFirst: Bool = false) {
        guard phase != .closed else { return }
        phase = .closed
        if goAway == nil || reason == .closed { terminalError = reason }
        let terminal = terminalError
        publish { shared in
            shared.state = .closed
            if !shared.closeRequested { shared.terminalError = terminal }
        }
        connectTimer?.cancel()
        connectTimer = nil
        deadlineTimer?.cancel()
        deadlineTimer = nil
        deadlines.removeAll()
        let pending = Array(streams.values) + awaitingConnection + refused
        streams = [:]
        awaitingConnection = []
        refused = []
        for stream in pending { complete(stream, .failure(reason)) }
        let waiters = connectWaiters
        connectWaiters = []
        for waiter in waiters { waiter.resume(returning: .failure(reason)) }
        for ping in pingsInFlight { ping.timer?.cancel() }
        let pings = pingsAwaitingConnection + pingsInFlight.map(\.waiter)
        pingsAwaitingConnection = []
        pingsInFlight = []
        for waiter in pings { waiter(.failure(reason)) }
        if let session {
            // nghttp2_session_del reports no open stream; they were all failed above.
            nghttp2_session_del(session)
            self.session = nil
        }
        if let byteStream {
            self.byteStream = nil
            if flushFirst {
                byteStream.closeAfterFlush()
                if !byteStream.isClosed { byteStream.flush() }
            } else {
                byteStream.close(error: nil)
            }
        }
    }

    // MARK: nghttp2 callbacks (on this loop, inside mem_recv or mem_send)

    fileprivate func beginHeaders(streamID: Int32) {
        // A 1xx response is followed by the real one: forget the interim headers.
        guard let stream = streams[streamID], (100..<200).contains(stream.status) else { return }
        stream.status = 0
        stream.headers = HTTPHeaders()
    }

    fileprivate func header(streamID: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        guard let stream = streams[streamID] else { return }
        if name.first == UInt8(ascii: ":") {
            guard name.elementsEqual(":status".utf8) else { return }
            var status = 0
            for digit in value {
                guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return }
                status = status * 10 + Int(digit - UInt8(ascii: "0"))
            }
            stream.status = status
        } else {
            // Room for a few (APNs answers with one or two), not one reallocation per field.
            if stream.headers.isEmpty { stream.headers.reserveCapacity(4) }
            stream.headers.add(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
        }
    }

    fileprivate func dataChunk(streamID: Int32, bytes: UnsafeBufferPointer<UInt8>) {
        streams[streamID]?.body.append(contentsOf: bytes)
    }

    fileprivate func frameReceived(_ frame: UnsafePointer<nghttp2_frame>) {
        let type = frame.pointee.hd.type
        if type == UInt8(NGHTTP2_GOAWAY.rawValue) {
            let goaway = frame.pointee.goaway
            let debugData = goaway.opaque_data.map { Array(UnsafeBufferPointer(start: $0, count: goaway.opaque_data_len)) } ?? []
            receivedGoAway(HTTP2GoAway(errorCode: HTTP2ErrorCode(rawValue: goaway.error_code),
                                       lastStreamID: goaway.last_stream_id, debugData: debugData))
            return
        }
        let isAck = frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0
        if type == UInt8(NGHTTP2_SETTINGS.rawValue), !isAck, let session {
            let limit = Int(nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS))
            publish { $0.peerMaxConcurrentStreams = limit }
            return
        }
        if type == UInt8(NGHTTP2_PING.rawValue), isAck, !pingsInFlight.isEmpty {
            let ping = pingsInFlight.removeFirst()
            ping.timer?.cancel()
            ping.waiter(.success(ping.sentAt.duration(to: ContinuousClock.now)))
            return
        }
        guard type == UInt8(NGHTTP2_HEADERS.rawValue) || type == UInt8(NGHTTP2_DATA.rawValue),
              frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0,
              let stream = streams[frame.pointee.hd.stream_id], !stream.isFinished else { return }
        // Answer at END_STREAM: the stream itself closes later, once our side is done too.
        if stream.status >= 200 {
            complete(stream, .success(stream.response))
        } else {
            complete(stream, .failure(.protocolError("stream \(stream.streamID) ended without a final :status")))
        }
    }

    private func receivedGoAway(_ frame: HTTP2GoAway) {
        let info = goAway.map { $0.followed(by: frame) } ?? frame
        goAway = info
        let error = HTTPClientError.goAway(errorCode: info.errorCode, debugData: info.debugData, lastStreamID: info.lastStreamID)
        terminalError = error
        if phase == .active { phase = .goingAway }
        publish { shared in
            shared.lastGoAway = info
            guard shared.state != .closed else { return }
            shared.state = .goingAway
            shared.terminalError = error
        }
        // The server will not process these; nghttp2 closes them after this callback.
        let unprocessed = streams.filter { $0.key > info.lastStreamID }
        for (id, stream) in unprocessed {
            streams[id] = nil
            complete(stream, .failure(error))
        }
    }

    fileprivate func goAwaySent(_ frame: nghttp2_goaway) {
        guard frame.error_code != HTTP2ErrorCode.noError.rawValue, sentGoAway == nil else { return }
        let debugData = frame.opaque_data.map { Array(UnsafeBufferPointer(start: $0, count: frame.opaque_data_len)) } ?? []
        sentGoAway = HTTP2GoAway(errorCode: HTTP2ErrorCode(rawValue: frame.error_code), lastStreamID: frame.last_stream_id,
                                 debugData: debugData)
    }

    fileprivate func frameNotSent(type: UInt8, streamID: Int32, libraryError: Int32) {
        guard type == UInt8(NGHTTP2_HEADERS.rawValue), let stream = streams.removeValue(forKey: streamID) else { return }
        if goAway != nil {
            complete(stream, .failure(terminalError))
        } else {
            let reason = String(cString: nghttp2_strerror(libraryError))
            complete(stream, .failure(.protocolError("the request's HEADERS could not be sent (\(reason))")))
        }
    }

    fileprivate func streamClosed(streamID: Int32, errorCode: UInt32) {
        guard let stream = streams.removeValue(forKey: streamID), !stream.isFinished else { return }
        let code = HTTP2ErrorCode(rawValue: errorCode)
        if let goAway, streamID > goAway.lastStreamID {
            complete(stream, .failure(terminalError))
        } else if code == .refusedStream, goAway == nil, stream.status == 0,
                  stream.refusals < configuration.maximumRefusedStreamResends {
            // REFUSED_STREAM promises the request was not processed (RFC 9113 section 8.7),
            // typically because the server lowered its stream limit while it was in flight.
            stream.refusals += 1
            stream.prepareForRetry()
            refused.append(stream)
        } else {
            complete(stream, .failure(.streamReset(errorCode: code)))
        }
    }

    fileprivate func readRequestBody(streamID: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int,
                                     flags: UnsafeMutablePointer<UInt32>) -> Int {
        guard let stream = streams[streamID] else { return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
        let count = stream.request.body.withUnsafeBufferPointer { source -> Int in
            let count = min(length, source.count - stream.bodyOffset)
            if let base = source.baseAddress, count > 0 {
                buffer.update(from: base + stream.bodyOffset, count: count)
            }
            return count
        }
        stream.bodyOffset += count
        if stream.bodyOffset >= stream.request.body.count { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
        return count
    }
}

// MARK: - C callbacks

private func connection(_ userData: UnsafeMutableRawPointer?) -> HTTP2ClientConnection? {
    userData.map { Unmanaged<HTTP2ClientConnection>.fromOpaque($0).takeUnretainedValue() }
}

private func clientOnBeginHeaders(_ s: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?,
                                  _ userData: UnsafeMutableRawPointer?) -> Int32 {
    guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) else { return 0 }
    connection(userData)?.beginHeaders(streamID: frame.pointee.hd.stream_id)
    return 0
}

private func clientOnHeader(_ s: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ name: UnsafePointer<UInt8>?,
                            _ nameLength: Int, _ value: UnsafePointer<UInt8>?, _ valueLength: Int, _ flags: UInt8,
                            _ userData: UnsafeMutableRawPointer?) -> Int32 {
    guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) else { return 0 }
    connection(userData)?.header(streamID: frame.pointee.hd.stream_id,
                                 name: UnsafeBufferPointer(start: name, count: nameLength),
                                 value: UnsafeBufferPointer(start: value, count: valueLength))
    return 0
}

private func clientOnDataChunk(_ s: OpaquePointer?, _ flags: UInt8, _ streamID: Int32, _ data: UnsafePointer<UInt8>?,
                               _ length: Int, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    connection(userData)?.dataChunk(streamID: streamID, bytes: UnsafeBufferPointer(start: data, count: length))
    return 0
}

private func clientOnFrameReceived(_ s: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?,
                                   _ userData: UnsafeMutableRawPointer?) -> Int32 {
    guard let frame else { return 0 }
    connection(userData)?.frameReceived(frame)
    return 0
}

private func clientOnFrameNotSent(_ s: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ libraryError: Int32,
                                  _ userData: UnsafeMutableRawPointer?) -> Int32 {
    guard let frame else { return 0 }
    connection(userData)?.frameNotSent(type: frame.pointee.hd.type, streamID: frame.pointee.hd.stream_id,
                                       libraryError: libraryError)
    return 0
}

private func clientOnFrameSent(_ s: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?,
                               _ userData: UnsafeMutableRawPointer?) -> Int32 {
    guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_GOAWAY.rawValue) else { return 0 }
    connection(userData)?.goAwaySent(frame.pointee.goaway)
    return 0
}

private func clientOnStreamClose(_ s: OpaquePointer?, _ streamID: Int32, _ errorCode: UInt32,
                                 _ userData: UnsafeMutableRawPointer?) -> Int32 {
    connection(userData)?.streamClosed(streamID: streamID, errorCode: errorCode)
    return 0
}

private func clientReadRequestBody(_ s: OpaquePointer?, _ streamID: Int32, _ buffer: UnsafeMutablePointer<UInt8>?,
                                   _ length: Int, _ flags: UnsafeMutablePointer<UInt32>?,
                                   _ source: UnsafeMutablePointer<nghttp2_data_source>?,
                                   _ userData: UnsafeMutableRawPointer?) -> Int {
    guard let buffer, let flags, let owner = connection(userData) else {
        return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
    }
    return owner.readRequestBody(streamID: streamID, into: buffer, length: length, flags: flags)
}
