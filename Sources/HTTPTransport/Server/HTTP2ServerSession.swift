internal import CNGHTTP2

/// The server side of one HTTP/2 connection, driven by nghttp2. Loop-confined.
///
/// nghttp2 parses and frames; this class turns its callbacks into `HTTPRequest`s and
/// responses into frames. Output is produced with `nghttp2_session_mem_send` into the
/// byte stream's buffer, so one read cycle ends in one write.
final class HTTP2ServerSession: ServerSession, DeferredFlushing {
    /// One request stream, owned by the session's list of open streams until nghttp2 closes it.
    ///
    /// nghttp2 holds an unretained pointer to it as stream user data, so callbacks find it
    /// with nghttp2's own stream lookup instead of a second hash table.
    final class Stream {
        private(set) var id: Int32
        /// When its HEADERS frame arrived: the read that brought it.
        private(set) var startedAt: ContinuousClock.Instant
        var previous: Stream?
        var next: Stream?
        var method = ""
        var path = ""
        var authority: String?
        var host: String?
        var scheme = "https"
        var headers = HTTPHeaders()
        var headerListSize = 0
        var headersTooLarge = false
        /// The header block has arrived whole (the HEADERS frame and any CONTINUATION).
        var headersComplete = false
        var body: [UInt8] = []
        var bodyTooLarge = false
        var dispatched = false
        var responded = false
        var resetAfterResponse = false
        var responseBody: [UInt8] = []
        var responseOffset = 0

        init(id: Int32, startedAt: ContinuousClock.Instant) {
            self.id = id
            self.startedAt = startedAt
        }

        /// The request is still arriving: not yet handed to the handler, nor answered.
        var isIncomplete: Bool { !dispatched && !responded }

        /// Makes a closed stream ready to carry a new request, as if freshly made.
        func reuse(id: Int32, startedAt: ContinuousClock.Instant) -> Stream {
            self.id = id
            self.startedAt = startedAt
            method = ""
            path = ""
            authority = nil
            host = nil
            scheme = "https"
            headers = HTTPHeaders()
            headerListSize = 0
            headersTooLarge = false
            headersComplete = false
            body = []
            bodyTooLarge = false
            dispatched = false
            responded = false
            resetAfterResponse = false
            responseBody = []
            responseOffset = 0
            return self
        }
    }

    /// The previous request's header strings, reused when the next one repeats them.
    private var headerStrings = HeaderStringCache()

    /// Closed streams kept for reuse: a request then costs no object allocation.
    private var spareStreams: [Stream] = []
    private static let maxSpareStreams = 64
    /// Spare streams a quiet connection keeps: its next request costs no allocation.
    private static let idleSpareStreams = 1

    private var session: OpaquePointer?
    private let stream: ByteStream
    private let connection: HTTPConnection
    private let context: ServerContext
    private var firstStream: Stream?
    private var openStreamCount = 0
    private var inReceive = false
    private var flushScheduled = false
    private let headerBlock: HeaderBlockBuilder
    /// Rewrites a header value nghttp2 could not decode, so that its stream is answered 431.
    private var oversizedValues: OversizedValueFilter
    /// The stream whose header block carried the last such value.
    private var oversizedValueStreamID: Int32 = 0
    /// Counts nghttp2's allocations, when the configuration asks for it.
    private let memoryCounter: NGHTTP2MemoryCounter?

    init?(stream: ByteStream, connection: HTTPConnection, context: ServerContext) {
        self.stream = stream
        self.connection = connection
        self.context = context
        headerBlock = context.registry(for: stream.eventLoop)?.headerBlock ?? HeaderBlockBuilder()
        memoryCounter = context.configuration.countsConnectionMemory ? NGHTTP2MemoryCounter() : nil
        // nghttp2 announces a 4096-byte table unless told otherwise.
        oversizedValues = OversizedValueFilter(tableSizeLimit: context.configuration.headerTableSize ?? 4096)
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else { return nil }
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, onBeginHeaders)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, onHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, onDataChunk)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, onFrameReceived)
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, onFrameSent)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, onStreamClose)

        var option: OpaquePointer?
        guard nghttp2_option_new(&option) == 0, let option else { return nil }
        defer { nghttp2_option_del(option) }
        // No dynamic table for the responses we encode: their distinguishing values (such
        // as a fresh apns-id) never repeat, so indexing them only churns the table, which
        // costs a large share of the server's instructions per request.
        nghttp2_option_set_max_deflate_dynamic_table_size(option, 0)
        Self.setLimits(option)

        var created: OpaquePointer?
        let userData = Unmanaged.passUnretained(self).toOpaque()
        let status: Int32
        if var allocator = memoryCounter?.allocator {
            status = nghttp2_session_server_new3(&created, callbacks, userData, option, &allocator)
        } else {
            status = nghttp2_session_server_new2(&created, callbacks, userData, option)
        }
        guard status == 0, let created else { return nil }
        session = created

        let configuration = context.configuration
        var settings = Self.initialSettings(configuration)
        _ = nghttp2_submit_settings(created, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
        _ = nghttp2_session_set_local_window_size(created, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0,
                                                  Int32(clamping: Self.windowSize(configuration.connectionWindowSize)))
        announceInitialStreamLimit(UInt32(clamping: configuration.maxConcurrentStreams))
        produceOutput()
    }

    /// Acknowledgements (PING and SETTINGS ACKs) a peer may leave unread: produced since the
    /// byte stream last emptied into the socket, or queued inside nghttp2 by one read. A peer
    /// past it is flooding; the connection ends with GOAWAY ENHANCE_YOUR_CALM.
    static let maxUnreadAcknowledgements = 1_000
    /// SETTINGS entries accepted in one frame (a client sends a handful); more is
    /// ENHANCE_YOUR_CALM.
    static let maxSettingsEntries = 32
    /// CONTINUATION frames after one HEADERS frame: 64 frames of the default 16 KiB carry a
    /// 1 MiB header block, which is read whole and answered 431 when it exceeds
    /// `maxHeaderListSize`. More frames than this is a flood: ENHANCE_YOUR_CALM.
    static let maxContinuations = 64

    /// nghttp2's own limits, set to this session's named values rather than left to the
    /// library's defaults (docs/ARCHITECTURE.md, "Bounded per connection").
    private static func setLimits(_ option: OpaquePointer) {
        nghttp2_option_set_max_outbound_ack(option, maxUnreadAcknowledgements)
        nghttp2_option_set_max_settings(option, maxSettingsEntries)
        nghttp2_option_set_max_continuations(option, maxContinuations)
        // Closed streams are kept only for RFC 7540 priorities, which this server ignores;
        // nghttp2 would keep up to SETTINGS_MAX_CONCURRENT_STREAMS of them (without limit
        // while it has not been told one), each a lookup-table entry.
        nghttp2_option_set_no_closed_streams(option, 1)
    }

    /// A flow-control window within what HTTP/2 allows (0 to 2^31-1).
    private static func windowSize(_ size: Int) -> Int {
        min(max(size, 0), Int(c_nghttp2_max_window_size()))
    }

    /// The entries of our first SETTINGS frame, in identifier order, without the stream limit
    /// (`announceInitialStreamLimit` adds it). Every value is brought into the range HTTP/2
    /// allows: nghttp2 refuses a whole SETTINGS frame for one value outside it.
    private static func initialSettings(_ configuration: HTTPServerConfiguration) -> [nghttp2_settings_entry] {
        func entry(_ id: nghttp2_settings_id, _ value: Int) -> nghttp2_settings_entry {
            nghttp2_settings_entry(settings_id: Int32(id.rawValue), value: UInt32(clamping: value))
        }
        var settings: [nghttp2_settings_entry] = []
        settings.reserveCapacity(4)
        if let size = configuration.headerTableSize { settings.append(entry(NGHTTP2_SETTINGS_HEADER_TABLE_SIZE, size)) }
        settings.append(entry(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, windowSize(configuration.initialWindowSize)))
        if let size = configuration.maxFrameSize {
            let sizes = HTTPServerConfiguration.maxFrameSizes
            settings.append(entry(NGHTTP2_SETTINGS_MAX_FRAME_SIZE, min(max(size, sizes.lowerBound), sizes.upperBound)))
        }
        settings.append(entry(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, configuration.maxHeaderListSize))
        return settings
    }

    /// The stream limit announced in our first SETTINGS, until the client acknowledges it.
    private var unacknowledgedInitialLimit: UInt32?
    /// The acknowledged first limit, enforced here rather than by nghttp2 (which would have
    /// to send a second SETTINGS to learn it) until `setMaxConcurrentStreams` changes it.
    private var acknowledgedInitialLimit: UInt32?
    /// SETTINGS_MAX_CONCURRENT_STREAMS as last announced: a SETTINGS frame goes out only
    /// when it changes.
    private var announcedStreamLimit: UInt32?
    /// nghttp2 failed, or the peer flooded: the GOAWAY is queued, and no further input is
    /// handed to nghttp2, whose parser may be stopped in the middle of a frame.
    private var terminated = false
    /// See ``maxUnreadAcknowledgements``.
    private var unreadAcknowledgements = 0
    /// `produceOutput` left frames in nghttp2 because the peer is behind.
    private var outputHeldBack = false
    /// Requests on streams above this are not handed to the handler: after a GOAWAY the
    /// peer was told they were not processed, and after `closeConnection()` they never will
    /// be. Without it, requests later in the same read would be handled, and the client,
    /// seeing no answer, would send them again: a duplicate the server did process.
    private var lastDispatchableStreamID = Int32.max
    /// `closeConnection()` was called from inside `mem_recv` (a handler answering synchronously):
    /// the close waits until the read is done, since nghttp2 must not produce output from its callbacks.
    private var closesAfterReceive = false

    /// Puts SETTINGS_MAX_CONCURRENT_STREAMS into our first SETTINGS frame without telling
    /// nghttp2, which then enforces it only once the client has acknowledged it.
    ///
    /// A client may open streams before it has read our SETTINGS (RFC 9113 section 6.5.3
    /// lets it assume no limit until then). nghttp2 would refuse those at once; APNs' mock
    /// must announce one stream before authentication, and h2load-style clients burst 100
    /// streams in their first flight. So the limit is announced at once and enforced from
    /// the acknowledgement on (`frameReceived` submits it to nghttp2 then).
    private func announceInitialStreamLimit(_ limit: UInt32) {
        guard let session else { return }
        var data: UnsafePointer<UInt8>?
        let count = nghttp2_session_mem_send(session, &data)
        guard count >= 9, let data else {
            if count > 0, let data { stream.enqueue(UnsafeRawBufferPointer(start: data, count: count)) }
            return
        }
        var bytes = Array(UnsafeBufferPointer(start: data, count: count))
        let length = Int(bytes[0]) << 16 | Int(bytes[1]) << 8 | Int(bytes[2])
        // The server's first frame is its SETTINGS (type 0x4, no flags, stream 0).
        guard bytes[3] == 0x4, bytes[4] == 0, 9 + length <= bytes.count else {
            stream.enqueue(bytes)
            return
        }
        let entry: [UInt8] = [0x00, 0x03, UInt8(limit >> 24), UInt8(limit >> 16 & 0xff), UInt8(limit >> 8 & 0xff), UInt8(limit & 0xff)]
        bytes.insert(contentsOf: entry, at: 9 + length)
        let newLength = length + entry.count
        bytes[0] = UInt8(newLength >> 16 & 0xff)
        bytes[1] = UInt8(newLength >> 8 & 0xff)
        bytes[2] = UInt8(newLength & 0xff)
        stream.enqueue(bytes)
        unacknowledgedInitialLimit = limit
        announcedStreamLimit = limit
    }

    deinit {
        // Streams link to each other both ways; unlinking breaks those cycles.
        while let request = firstStream { unlink(request) }
        releaseSession()
    }

    private func releaseSession() {
        if let session { nghttp2_session_del(session) }
        session = nil
    }

    // MARK: Input

    func receive(_ bytes: UnsafeRawBufferPointer) {
        guard let session, !terminated else { return }
        inReceive = true
        var result = 0
        _ = oversizedValues.feed(bytes, rewritten: { oversizedValueStreamID = $0.streamID }) { input in
            result = nghttp2_session_mem_recv(session, input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count)
            return result >= 0
        }
        inReceive = false
        if result < 0 {
            terminate(Self.goAwayCode(forFatal: Int32(clamping: result)),
                      reason: String(cString: nghttp2_strerror(Int32(clamping: result))))
            return
        }
        produceOutput(everything: closesAfterReceive)
        if unreadAcknowledgements > Self.maxUnreadAcknowledgements {
            terminate(.enhanceYourCalm, reason: "too many unread PING and SETTINGS acknowledgements")
            return
        }
        if closesAfterReceive { stream.closeAfterFlush() }
    }

    /// The GOAWAY code for a fatal `mem_recv` error, which nghttp2 answers with no GOAWAY of its own.
    static func goAwayCode(forFatal error: Int32) -> HTTP2ErrorCode {
        switch error {
        case NGHTTP2_ERR_FLOODED.rawValue, NGHTTP2_ERR_TOO_MANY_CONTINUATIONS.rawValue: .enhanceYourCalm
        case NGHTTP2_ERR_BAD_CLIENT_MAGIC.rawValue: .protocolError
        default: .internalError
        }
    }

    /// Ends the connection for good: what nghttp2 already queued goes out (in order, so the
    /// peer sees a prefix of its answers), then GOAWAY, then the close. No input reaches
    /// nghttp2 again, so nothing after the failure is served.
    private func terminate(_ code: HTTP2ErrorCode, reason: String) {
        guard let session, !terminated else { return }
        terminated = true
        lastDispatchableStreamID = 0
        let lastStream = nghttp2_session_get_last_proc_stream_id(session)
        _ = Array(reason.utf8).withUnsafeBufferPointer {
            nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), lastStream, code.rawValue, $0.baseAddress, $0.count)
        }
        produceOutput(everything: true)
        stream.closeAfterFlush()
    }

    /// Moves the frames nghttp2 has ready into the byte stream, and closes when nghttp2 is done.
    ///
    /// Stops once `ByteStream.outputPauseThreshold` is queued, unless `everything` (before a
    /// close, which would drop what nghttp2 still holds): the rest waits in nghttp2, where
    /// response bodies are read lazily and queued ACKs count toward `max_outbound_ack`, until
    /// `didDrain` says the peer took what was queued.
    private func produceOutput(everything: Bool = false) {
        guard let session else { return }
        outputHeldBack = false
        while true {
            if !everything && stream.pendingOutputCount >= ByteStream.outputPauseThreshold {
                outputHeldBack = nghttp2_session_want_write(session) != 0
                return
            }
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            if count < 0 {
                stream.close(error: .protocolViolation(String(cString: nghttp2_strerror(Int32(count)))))
                return
            }
            guard count > 0, let data else { break }
            stream.enqueue(UnsafeRawBufferPointer(start: data, count: count))
        }
        if nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0 {
            stream.closeAfterFlush()
        }
    }

    /// Output from work outside a read cycle (an answer from a task or a timer, another
    /// socket's callback): queued now, so that a close that follows still writes it first,
    /// and written at the end of the loop's iteration, in one write with whatever else this
    /// connection queued in it. Inside a read, the read writes.
    private func sendNow() {
        guard !inReceive else { return }
        produceOutput()
        guard !flushScheduled else { return }
        flushScheduled = true
        connection.eventLoop.flushAtEndOfIteration(self)
    }

    func flushDeferred() {
        flushScheduled = false
        stream.flush()
    }

    func didDrain() {
        // The peer's kernel has taken every acknowledgement queued so far.
        unreadAcknowledgements = 0
        guard outputHeldBack else { return }
        // Written at the end of the iteration, not from inside this flush.
        produceOutput()
        guard !flushScheduled else { return }
        flushScheduled = true
        connection.eventLoop.flushAtEndOfIteration(self)
    }

    var hasOpenStreams: Bool { openStreamCount > 0 }

    /// What a burst left behind (spare streams, a grown output buffer, the header strings
    /// kept for the next request) goes back once the connection has been quiet, so an idle
    /// connection stays small. Not at every moment without a stream: a client that sends
    /// bursts, or one request at a time, would then allocate them again for each.
    func connectionWentQuiet() {
        guard openStreamCount == 0 else { return }
        if spareStreams.count > Self.idleSpareStreams {
            spareStreams = Array(spareStreams.prefix(Self.idleSpareStreams))
        }
        headerStrings.removeAll()
        stream.releaseIdleOutputBuffer()
    }

    var memory: ConnectionMemory {
        var memory = ConnectionMemory()
        memory.nghttp2 = memoryCounter?.liveBytes ?? 0
        memory.objects = ConnectionMemory.size(of: self) + (memoryCounter.map(ConnectionMemory.size(of:)) ?? 0)
        memory.buffers = ConnectionMemory.size(of: spareStreams) + headerStrings.allocatedBytes
        var current = firstStream
        while let request = current {
            memory.objects += ConnectionMemory.size(of: request)
            current = request.next
        }
        for request in spareStreams { memory.objects += ConnectionMemory.size(of: request) }
        return memory
    }

    /// One walk over the open streams, made only by the connection's timer.
    var nextRequestDeadline: ContinuousClock.Instant? {
        var earliest: ContinuousClock.Instant?
        var current = firstStream
        while let request = current {
            if request.isIncomplete {
                let deadline = HTTPRequestRejection.deadline(
                    startedAt: request.startedAt, headersComplete: request.headersComplete, context.configuration)
                if earliest.map({ deadline < $0 }) ?? true { earliest = deadline }
            }
            current = request.next
        }
        return earliest
    }

    /// The client's preface and first SETTINGS frame have arrived.
    private var receivedClientSettings = false

    var awaitsClientPreface: Bool { !receivedClientSettings }

    /// Each stream answered 408 is reset (NO_ERROR) after its answer, as a body over the limit
    /// is. Then GOAWAY: a client that let a request stall for the whole deadline gets no new
    /// streams here, so it cannot keep the connection by opening one slow stream after another;
    /// streams it already opened finish (or time out in their turn), and the connection closes.
    func expireRequests(dueBy now: ContinuousClock.Instant) {
        let configuration = context.configuration
        var expired: [Stream] = []
        var current = firstStream
        while let request = current {
            if request.isIncomplete,
               HTTPRequestRejection.deadline(startedAt: request.startedAt, headersComplete: request.headersComplete, configuration) <= now {
                expired.append(request)
            }
            current = request.next
        }
        guard !expired.isEmpty else { return }
        context.counters.timedOutRequests.wrappingAdd(expired.count, ordering: .relaxed)
        for request in expired {
            reject(request, HTTPRequestRejection.timedOut(headersComplete: request.headersComplete, configuration))
        }
        sendGoAway(errorCode: .noError, debugData: [])
    }

    /// `:status` in decimal; the answers a server sends most are spelled out, which saves
    /// formatting the number for every response.
    static func statusText(_ status: Int) -> String {
        switch status {
        case 200: "200"
        case 400: "400"
        case 403: "403"
        case 404: "404"
        case 410: "410"
        case 429: "429"
        case 500: "500"
        case 503: "503"
        default: String(status)
        }
    }

    private func stream(_ streamID: Int32) -> Stream? {
        guard let session, let pointer = nghttp2_session_get_stream_user_data(session, streamID) else { return nil }
        return Unmanaged<Stream>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Runs `body` on the open stream `streamID` without retaining it, for the callbacks
    /// that come for every header and data chunk: the session's list of open streams keeps
    /// it alive for as long as nghttp2 knows its id.
    private func withStream(_ streamID: Int32, _ body: (Stream) -> Void) {
        guard let session, let pointer = nghttp2_session_get_stream_user_data(session, streamID) else { return }
        Unmanaged<Stream>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
    }

    // MARK: Callbacks (called by nghttp2 on this loop)

    fileprivate func beginHeaders(streamID: Int32) {
        guard let session else { return }
        if let limit = acknowledgedInitialLimit, openStreamCount >= Int(limit) {
            // What nghttp2 does for a limit it knows of: the stream is refused unprocessed,
            // and its headers find no stream to fill.
            _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID,
                                          HTTP2ErrorCode.refusedStream.rawValue)
            return
        }
        let startedAt = stream.lastActivity
        let request = spareStreams.popLast()?.reuse(id: streamID, startedAt: startedAt) ?? Stream(id: streamID, startedAt: startedAt)
        request.next = firstStream
        firstStream?.previous = request
        firstStream = request
        openStreamCount += 1
        _ = nghttp2_session_set_stream_user_data(session, streamID, Unmanaged.passUnretained(request).toOpaque())
        context.counters.openStreams.wrappingAdd(1, ordering: .relaxed)
    }

    fileprivate func header(streamID: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        withStream(streamID) { header(of: $0, name: name, value: value) }
    }

    private func header(of request: Stream, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        guard !request.headersTooLarge else { return }
        request.headerListSize += name.count + value.count + 32
        if request.headerListSize > context.configuration.maxHeaderListSize || isOversizedValue(of: request, value) {
            // The fields before this one are kept (they fit within the limit, so memory stays
            // bounded) for the handler's answer; this one and any after it are dropped.
            request.headersTooLarge = true
            return
        }
        if name.count > 1, name[0] == UInt8(ascii: ":") {
            // nghttp2 has already rejected unknown and repeated pseudo-headers, so the
            // length and first letter tell the four request pseudo-headers apart.
            switch (name.count, name[1]) {
            case (7, UInt8(ascii: "m")): request.method = headerStrings.pseudoValue(value, slot: .method)
            case (5, UInt8(ascii: "p")): request.path = headerStrings.pseudoValue(value, slot: .path)
            case (10, UInt8(ascii: "a")): request.authority = headerStrings.pseudoValue(value, slot: .authority)
            case (7, UInt8(ascii: "s")): request.scheme = headerStrings.pseudoValue(value, slot: .scheme)
            default: break
            }
        } else {
            let index = request.headers.count
            let valueString = headerStrings.value(value, index: index)
            if request.host == nil, name.count == 4, name.elementsEqual("host".utf8) { request.host = valueString }
            if request.headers.isEmpty { request.headers.reserveCapacity(8) }
            request.headers.add(name: headerStrings.name(name, index: index), value: valueString)
        }
    }

    /// The value `OversizedValueFilter` put in place of one nghttp2 could not decode: the
    /// stream is refused whatever the listener's limit, and the filler after it is dropped.
    private func isOversizedValue(of request: Stream, _ value: UnsafeBufferPointer<UInt8>) -> Bool {
        request.id == oversizedValueStreamID && value.count == OversizedValueFilter.replacementLength
    }

    fileprivate func dataChunk(streamID: Int32, bytes: UnsafeBufferPointer<UInt8>) {
        guard let request = stream(streamID), !request.bodyTooLarge, !request.dispatched, !request.responded else { return }
        if request.body.count + bytes.count > context.configuration.maxBodySize {
            request.bodyTooLarge = true
            reject(request, .bodyTooLarge(limit: context.configuration.maxBodySize))
            return
        }
        request.body.append(contentsOf: bytes)
    }

    fileprivate func frameReceived(type: UInt8, flags: UInt8, streamID: Int32) {
        if type == UInt8(NGHTTP2_SETTINGS.rawValue), flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0,
           let limit = unacknowledgedInitialLimit {
            // The client has our first SETTINGS: from now on its limit holds, enforced in
            // `beginHeaders` without a second SETTINGS frame that would change nothing.
            unacknowledgedInitialLimit = nil
            acknowledgedInitialLimit = limit
            return
        }
        // nghttp2 takes nothing but the preface and a SETTINGS frame first.
        if type == UInt8(NGHTTP2_SETTINGS.rawValue) { receivedClientSettings = true }
        guard let request = stream(streamID) else { return }
        if type == UInt8(NGHTTP2_HEADERS.rawValue) { request.headersComplete = true }
        let endStream = flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
        let headersTooLarge = type == UInt8(NGHTTP2_HEADERS.rawValue) && request.headersTooLarge
        guard endStream || headersTooLarge, !request.dispatched, !request.responded else { return }
        guard streamID <= lastDispatchableStreamID else {
            // REFUSED_STREAM tells the client the request was not processed and is safe to retry.
            request.responded = true
            if let session {
                _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID,
                                              HTTP2ErrorCode.refusedStream.rawValue)
            }
            return
        }
        if headersTooLarge {
            // Answered at once, with what fitted: the rest of the request is not read.
            reject(request, .headerListTooLarge(limit: context.configuration.maxHeaderListSize))
            return
        }
        request.dispatched = true
        context.counters.requests.wrappingAdd(1, ordering: .relaxed)
        let httpRequest = HTTPRequest(
            method: request.method, path: request.path, authority: request.authority ?? request.host,
            scheme: request.scheme, headers: request.headers, body: request.body, version: .http2,
            streamID: streamID, connection: connection)
        request.body = []
        context.handler.handle(httpRequest, responder: HTTPResponder(connection: connection, streamID: streamID))
    }

    /// Answers a request the transport refuses the way the handler wants, with what was read
    /// of it; the stream is reset after the answer if the client is still sending it.
    private func reject(_ request: Stream, _ rejection: HTTPRequestRejection) {
        // Handed to the handler, which may answer later: the rest of it is not read, and it is
        // no longer a request being read (the read deadline does not apply).
        request.dispatched = true
        request.resetAfterResponse = true
        let head = HTTPRequest(
            method: request.method, path: request.path, authority: request.authority ?? request.host,
            scheme: request.scheme, headers: request.headers, body: [], version: .http2,
            streamID: request.id, connection: connection)
        request.headers = HTTPHeaders()
        request.body = []
        context.handler.handleRejected(head, rejection: rejection, responder: HTTPResponder(connection: connection, streamID: request.id))
    }

    fileprivate func frameSent(type: UInt8, flags: UInt8, streamID: Int32) {
        if streamID == 0, flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0,
           type == UInt8(NGHTTP2_PING.rawValue) || type == UInt8(NGHTTP2_SETTINGS.rawValue) {
            unreadAcknowledgements += 1
            return
        }
        guard flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0, let request = stream(streamID),
              request.resetAfterResponse, let session else { return }
        // A request that already ended is closed now; RST_STREAM on a closed stream is a protocol error.
        guard nghttp2_session_get_stream_remote_close(session, streamID) == 0 else { return }
        // The request is still arriving but was already answered: stop the rest of it.
        _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, HTTP2ErrorCode.noError.rawValue)
    }

    fileprivate func streamClosed(streamID: Int32) {
        guard let request = stream(streamID) else { return }
        unlink(request)
        if spareStreams.count < Self.maxSpareStreams { spareStreams.append(request) }
        context.counters.openStreams.wrappingSubtract(1, ordering: .relaxed)
    }

    private func unlink(_ request: Stream) {
        if let previous = request.previous { previous.next = request.next } else { firstStream = request.next }
        request.next?.previous = request.previous
        request.previous = nil
        request.next = nil
        openStreamCount -= 1
    }

    fileprivate func readResponseBody(streamID: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int,
                                      flags: UnsafeMutablePointer<UInt32>) -> Int {
        guard let request = stream(streamID) else { return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
        let count = min(length, request.responseBody.count - request.responseOffset)
        request.responseBody.withUnsafeBufferPointer { source in
            if let base = source.baseAddress, count > 0 {
                buffer.update(from: base + request.responseOffset, count: count)
            }
        }
        request.responseOffset += count
        if request.responseOffset >= request.responseBody.count {
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            request.responseBody = []
        }
        return count
    }

    // MARK: Responses and controls

    func respond(streamID: Int32, response: HTTPResponse) {
        guard let request = stream(streamID), !request.responded else { return }
        submit(request, response)
    }

    private func submit(_ request: Stream, _ response: HTTPResponse) {
        guard let session else { return }
        request.responded = true
        let body = response.body ?? []
        headerBlock.reset()
        headerBlock.appendTrusted(name: ":status", value: Self.statusText(response.status))
        for field in response.headers { headerBlock.append(name: field.name, value: field.value) }
        if response.body != nil { headerBlock.appendTrusted(name: "content-length", value: String(body.count)) }
        request.responseBody = body
        request.responseOffset = 0

        let result = headerBlock.withPairs { pairs, count in
            if body.isEmpty {
                return nghttp2_submit_response(session, request.id, pairs, count, nil)
            }
            var provider = nghttp2_data_provider()
            provider.read_callback = readResponseBodyCallback
            return nghttp2_submit_response(session, request.id, pairs, count, &provider)
        }
        if result != 0 { return }
        sendNow()
    }

    func resetStream(streamID: Int32, errorCode: HTTP2ErrorCode) {
        guard let session, let request = stream(streamID) else { return }
        request.responded = true
        _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, errorCode.rawValue)
        sendNow()
    }

    func setMaxConcurrentStreams(_ value: Int) {
        let limit = UInt32(clamping: value)
        // No SETTINGS frame when nothing changes; the limit already announced still holds.
        guard let session, limit != announcedStreamLimit else { return }
        announcedStreamLimit = limit
        // An explicit limit supersedes the initial one, and nghttp2 enforces it.
        unacknowledgedInitialLimit = nil
        acknowledgedInitialLimit = nil
        var entry = nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue),
                                           value: limit)
        _ = nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entry, 1)
        sendNow()
    }

    func sendGoAway(errorCode: HTTP2ErrorCode, debugData: [UInt8]) {
        guard let session else { return }
        let lastStream = nghttp2_session_get_last_proc_stream_id(session)
        lastDispatchableStreamID = min(lastDispatchableStreamID, lastStream)
        let submitted = debugData.withUnsafeBufferPointer {
            nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), lastStream, errorCode.rawValue,
                                  $0.baseAddress, $0.count)
        }
        if submitted != 0 {
            // Debug data too large for one frame: the GOAWAY still goes, without it, so that
            // the streams past `lastStream` are not refused with nothing telling the client why.
            nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), lastStream, errorCode.rawValue, nil, 0)
        }
        sendNow()
    }

    func pauseReading() {
        stream.pauseReading()
    }

    func resumeReading() {
        stream.resumeReading()
    }

    func closeConnection() {
        lastDispatchableStreamID = 0
        if inReceive {
            closesAfterReceive = true
            return
        }
        produceOutput(everything: true)
        stream.closeAfterFlush()
        stream.flush()
    }

    func beginGracefulShutdown() {
        sendGoAway(errorCode: .noError, debugData: context.configuration.shutdownGoAwayDebugData)
    }

    func refuseUnansweredRequests() {
        var unanswered: [Stream] = []
        var current = firstStream
        while let request = current {
            if !request.responded { unanswered.append(request) }
            current = request.next
        }
        for request in unanswered { reject(request, .shuttingDown) }
        sendNow()
    }

    func connectionDidClose() {
        // nghttp2_session_del does not report streams still open, so release them here.
        let open = openStreamCount
        while let request = firstStream { unlink(request) }
        if open > 0 { context.counters.openStreams.wrappingSubtract(open, ordering: .relaxed) }
        releaseSession()
    }
}

// MARK: - C callbacks

private func session(_ userData: UnsafeMutableRawPointer?) -> HTTP2ServerSession? {
    userData.map { Unmanaged<HTTP2ServerSession>.fromOpaque($0).takeUnretainedValue() }
}

/// Runs `body` on the session without retaining it. nghttp2 calls back only from inside
/// the session's own calls into it, so the session is alive throughout; borrowing it saves
/// a retain and a release per callback, and a push brings about a dozen of them.
private func withSession(_ userData: UnsafeMutableRawPointer?, _ body: (HTTP2ServerSession) -> Void) {
    guard let userData else { return }
    Unmanaged<HTTP2ServerSession>.fromOpaque(userData)._withUnsafeGuaranteedRef(body)
}

private func onBeginHeaders(_ s: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
          frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST else { return 0 }
    withSession(userData) { $0.beginHeaders(streamID: frame.pointee.hd.stream_id) }
    return 0
}

private func onHeader(_ s: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ name: UnsafePointer<UInt8>?, _ nameLength: Int,
                      _ value: UnsafePointer<UInt8>?, _ valueLength: Int, _ flags: UInt8, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    guard let frame else { return 0 }
    withSession(userData) {
        $0.header(streamID: frame.pointee.hd.stream_id,
                  name: UnsafeBufferPointer(start: name, count: nameLength),
                  value: UnsafeBufferPointer(start: value, count: valueLength))
    }
    return 0
}

private func onDataChunk(_ s: OpaquePointer?, _ flags: UInt8, _ streamID: Int32, _ data: UnsafePointer<UInt8>?, _ length: Int,
                         _ userData: UnsafeMutableRawPointer?) -> Int32 {
    withSession(userData) { $0.dataChunk(streamID: streamID, bytes: UnsafeBufferPointer(start: data, count: length)) }
    return 0
}

private func onFrameReceived(_ s: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    guard let frame else { return 0 }
    withSession(userData) { $0.frameReceived(type: frame.pointee.hd.type, flags: frame.pointee.hd.flags, streamID: frame.pointee.hd.stream_id) }
    return 0
}

private func onFrameSent(_ s: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    guard let frame else { return 0 }
    withSession(userData) { $0.frameSent(type: frame.pointee.hd.type, flags: frame.pointee.hd.flags, streamID: frame.pointee.hd.stream_id) }
    return 0
}

private func onStreamClose(_ s: OpaquePointer?, _ streamID: Int32, _ errorCode: UInt32, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    withSession(userData) { $0.streamClosed(streamID: streamID) }
    return 0
}

private func readResponseBodyCallback(_ s: OpaquePointer?, _ streamID: Int32, _ buffer: UnsafeMutablePointer<UInt8>?, _ length: Int,
                                      _ flags: UnsafeMutablePointer<UInt32>?, _ source: UnsafeMutablePointer<nghttp2_data_source>?,
                                      _ userData: UnsafeMutableRawPointer?) -> Int {
    guard let buffer, let flags, let owner = session(userData) else {
        return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
    }
    return owner.readResponseBody(streamID: streamID, into: buffer, length: length, flags: flags)
}
