internal import CHTTPParser

/// The server side of one HTTP/1.1 connection, parsed by Debian's http-parser. Loop-confined.
///
/// Keep-alive and `Content-Length` or chunked bodies are handled; pipelined requests are
/// answered strictly in order by pausing the parser until each response is queued.
final class HTTP1ServerSession: ServerSession, DeferredFlushing {
    private let parser: UnsafeMutablePointer<http_parser>
    private let settings: UnsafeMutablePointer<http_parser_settings>
    private let stream: ByteStream
    private let connection: HTTPConnection
    private let context: ServerContext

    // The request being parsed.
    private var url: [UInt8] = []
    private var fieldName: [UInt8] = []
    private var fieldValue: [UInt8] = []
    private var lastWasValue = false
    private var headers = HTTPHeaders()
    private var headerBytes = 0
    private var body: [UInt8] = []
    private var inMessage = false
    /// The request line has begun (its URL), so the parser's method is this request's.
    private var methodRead = false
    /// When the request being read began arriving: the read that brought its first byte
    /// (empty lines before a request line included), or for pipelined bytes held back while
    /// an earlier request was answered, when parsing them began. Nil between requests and
    /// while one is being answered.
    private var readStartedAt: ContinuousClock.Instant?
    /// The request being read has its request line and headers in.
    private var headersDone = false

    // The request being answered.
    private var awaitingResponse = false
    private var keepAlive = true
    /// The request being answered is HEAD: its answer has the head a GET would get, with
    /// the body's length, and no body (RFC 9110 §9.3.2), whatever the handler gives.
    private var answeringHead = false
    private var sequence: Int32 = 0
    private var pendingInput: [UInt8] = []
    private var inParse = false
    private var rejected = false
    private var closing = false
    private var flushScheduled = false

    init(stream: ByteStream, connection: HTTPConnection, context: ServerContext) {
        self.stream = stream
        self.connection = connection
        self.context = context
        parser = .allocate(capacity: 1)
        settings = .allocate(capacity: 1)
        http_parser_init(parser, HTTP_REQUEST)
        http_parser_settings_init(settings)
        parser.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        settings.pointee.on_message_begin = { owner($0)?.messageBegin() ?? -1 }
        settings.pointee.on_url = { owner($0)?.urlChunk($1, $2) ?? -1 }
        settings.pointee.on_header_field = { owner($0)?.headerField($1, $2) ?? -1 }
        settings.pointee.on_header_value = { owner($0)?.append(\.fieldValue, $1, $2, isValue: true) ?? -1 }
        settings.pointee.on_headers_complete = { owner($0)?.headersComplete() ?? -1 }
        settings.pointee.on_body = { owner($0)?.bodyChunk($1, $2) ?? -1 }
        settings.pointee.on_message_complete = { owner($0)?.messageComplete() ?? -1 }
    }

    deinit {
        parser.deallocate()
        settings.deallocate()
    }

    var hasOpenStreams: Bool { inMessage || awaitingResponse }

    var nextRequestDeadline: ContinuousClock.Instant? {
        readStartedAt.map { HTTPRequestRejection.deadline(startedAt: $0, headersComplete: headersDone, context.configuration) }
    }

    var awaitsClientPreface: Bool { false }

    // MARK: Input

    func receive(_ bytes: UnsafeRawBufferPointer) {
        guard !closing || hasOpenStreams, !rejected else { return }
        if awaitingResponse || !pendingInput.isEmpty {
            pendingInput.append(contentsOf: bytes)
            if pendingInput.count > context.configuration.maxBodySize + context.configuration.maxHeaderListSize + 65536 {
                stream.close(error: .protocolViolation("too many pipelined bytes while a response is pending"))
            }
            return
        }
        parse(bytes, receivedAt: stream.lastActivity)
    }

    private func parse(_ bytes: UnsafeRawBufferPointer, receivedAt: ContinuousClock.Instant) {
        var offset = 0
        while offset < bytes.count, !rejected {
            // Bytes go to the parser only between answers, so these begin the next request.
            if readStartedAt == nil {
                readStartedAt = receivedAt
                headersDone = false
            }
            let remaining = UnsafeRawBufferPointer(rebasing: bytes[offset...])
            inParse = true
            let parsed = http_parser_execute(parser, settings, remaining.baseAddress?.assumingMemoryBound(to: CChar.self), remaining.count)
            inParse = false
            let error = c_http_parser_errno(parser)
            offset += parsed
            if error == HPE_PAUSED {
                if awaitingResponse {
                    pendingInput.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[offset...]))
                    return
                }
                http_parser_pause(parser, 0)
                continue
            }
            if error != HPE_OK {
                if !rejected {
                    if error == HPE_HEADER_OVERFLOW {
                        // http-parser's own bound on the request line and headers, which
                        // only a limit above it leaves to the parser.
                        reject(.headerListTooLarge(limit: min(context.configuration.maxHeaderListSize, Int(HTTP_MAX_HEADER_SIZE))))
                    } else {
                        reject(HTTPRequestRejection(.malformed, message: Self.describe(error)))
                    }
                }
                return
            }
            if parser.pointee.upgrade != 0 {
                // We do not switch protocols; the request was answered and the connection ends.
                closing = true
                return
            }
        }
    }

    private static func describe(_ error: http_errno) -> String {
        "malformed HTTP/1.1 request: \(String(cString: http_errno_name(error))): \(String(cString: http_errno_description(error)))"
    }

    // MARK: Parser callbacks

    fileprivate func messageBegin() -> Int32 {
        url.removeAll(keepingCapacity: true)
        fieldName.removeAll(keepingCapacity: true)
        fieldValue.removeAll(keepingCapacity: true)
        headers = HTTPHeaders()
        // Room for a typical client's few fields: growing one at a time reallocates 3 or 4 times.
        headers.reserveCapacity(8)
        body = []
        headerBytes = 0
        lastWasValue = false
        methodRead = false
        headersDone = false
        inMessage = true
        context.counters.openStreams.wrappingAdd(1, ordering: .relaxed)
        return 0
    }

    fileprivate func append(_ field: ReferenceWritableKeyPath<HTTP1ServerSession, [UInt8]>, _ data: UnsafePointer<CChar>?,
                            _ length: Int, isValue: Bool = false) -> Int32 {
        headerBytes += length
        guard headerBytes <= context.configuration.maxHeaderListSize else {
            reject(.headerListTooLarge(limit: context.configuration.maxHeaderListSize))
            return -1
        }
        if let data {
            data.withMemoryRebound(to: UInt8.self, capacity: length) {
                self[keyPath: field].append(contentsOf: UnsafeBufferPointer(start: $0, count: length))
            }
        }
        if isValue { lastWasValue = true }
        return 0
    }

    fileprivate func urlChunk(_ data: UnsafePointer<CChar>?, _ length: Int) -> Int32 {
        methodRead = true
        return append(\.url, data, length)
    }

    fileprivate func headerField(_ data: UnsafePointer<CChar>?, _ length: Int) -> Int32 {
        if lastWasValue { commitHeader() }
        return append(\.fieldName, data, length)
    }

    private func commitHeader() {
        guard !fieldName.isEmpty else { return }
        headerBytes += 32
        headers.add(name: String(decoding: fieldName, as: UTF8.self), value: String(decoding: fieldValue, as: UTF8.self))
        fieldName.removeAll(keepingCapacity: true)
        fieldValue.removeAll(keepingCapacity: true)
        lastWasValue = false
    }

    fileprivate func headersComplete() -> Int32 {
        commitHeader()
        headersDone = true
        guard context.configuration.acceptsHTTP1 else {
            reject(HTTPRequestRejection(.http2Only, message: "this server speaks HTTP/2 only"))
            return -1
        }
        // http-parser takes any single digits as a version; only HTTP/1.0 and HTTP/1.1 are spoken here.
        guard parser.pointee.http_major == 1, parser.pointee.http_minor <= 1 else {
            reject(HTTPRequestRejection(.versionNotSupported, message: "only HTTP/1.0 and HTTP/1.1 are served"))
            return -1
        }
        let declared = parser.pointee.content_length
        if declared != UInt64.max, declared > UInt64(context.configuration.maxBodySize) {
            reject(.bodyTooLarge(limit: context.configuration.maxBodySize))
            return -1
        }
        // The declared length (within the limit): the body is copied once instead of being
        // reallocated as it doubles from 16 bytes.
        if declared != UInt64.max, declared > 0 { body.reserveCapacity(Int(declared)) }
        return 0
    }

    fileprivate func bodyChunk(_ data: UnsafePointer<CChar>?, _ length: Int) -> Int32 {
        guard body.count + length <= context.configuration.maxBodySize else {
            reject(.bodyTooLarge(limit: context.configuration.maxBodySize))
            return -1
        }
        if let data {
            data.withMemoryRebound(to: UInt8.self, capacity: length) { body.append(contentsOf: UnsafeBufferPointer(start: $0, count: length)) }
        }
        return 0
    }

    fileprivate func messageComplete() -> Int32 {
        inMessage = false
        readStartedAt = nil
        awaitingResponse = true
        keepAlive = http_should_keep_alive(parser) != 0 && parser.pointee.upgrade == 0
        answeringHead = parser.pointee.method == UInt32(HTTP_HEAD.rawValue)
        sequence &+= 1
        // Pause so that pipelined requests wait for this one's response.
        http_parser_pause(parser, 1)
        context.counters.requests.wrappingAdd(1, ordering: .relaxed)
        let request = HTTPRequest(
            method: method, path: String(decoding: url, as: UTF8.self), authority: headers["host"],
            scheme: connection.isSecure ? "https" : "http", headers: headers, body: body, version: .http1_1,
            streamID: sequence, connection: connection)
        body = []
        context.handler.handle(request, responder: HTTPResponder(connection: connection, streamID: sequence))
        return 0
    }

    // MARK: Output

    /// What was read of the request the parser is in: nothing of a request not begun (the
    /// fields then still hold the previous request's).
    private func partialRequest() -> HTTPRequest {
        HTTPRequest(
            method: inMessage && methodRead ? method : "", path: inMessage ? String(decoding: url, as: UTF8.self) : "",
            authority: inMessage ? headers["host"] : nil, scheme: connection.isSecure ? "https" : "http",
            headers: inMessage ? headers : HTTPHeaders(), body: [], version: .http1_1, streamID: sequence &+ 1,
            connection: connection)
    }

    /// Answers a request the transport refuses the way the handler wants, with what was read
    /// of it, then closes: the rest of the request is not read.
    private func reject(_ rejection: HTTPRequestRejection) {
        reject(context.handler.rejectedRequestResponse(partialRequest(), rejection: rejection))
    }

    private func reject(_ response: HTTPResponse) {
        rejected = true
        closing = true
        readStartedAt = nil
        if inMessage {
            inMessage = false
            context.counters.openStreams.wrappingSubtract(1, ordering: .relaxed)
        }
        write(response, keepAlive: false)
        stream.closeAfterFlush()
        if !inParse { stream.flush() }
    }

    func respond(streamID: Int32, response: HTTPResponse) {
        guard awaitingResponse, streamID == sequence else { return }
        awaitingResponse = false
        context.counters.openStreams.wrappingSubtract(1, ordering: .relaxed)
        let keep = keepAlive && !closing
        write(response, keepAlive: keep, withBody: !answeringHead)
        if !keep {
            closing = true
            stream.closeAfterFlush()
        }
        // Answered while parsing: the parse flushes. Answered from elsewhere (another
        // socket's callback, a task): written with the loop's other answers of this iteration.
        guard !inParse, !flushScheduled else { return }
        flushScheduled = true
        connection.eventLoop.flushAtEndOfIteration(self)
    }

    func flushDeferred() {
        flushScheduled = false
        stream.flush()
        resumeParsing()
    }

    private func resumeParsing() {
        guard !closing, !awaitingResponse, !stream.isClosed, !pendingInput.isEmpty else { return }
        let input = pendingInput
        pendingInput = []
        http_parser_pause(parser, 0)
        // Held back while the previous request was answered: the client was not slow meanwhile.
        input.withUnsafeBytes { parse($0, receivedAt: .now) }
        if !stream.isClosed { stream.flush() }
    }

    private func write(_ response: HTTPResponse, keepAlive: Bool, withBody: Bool = true) {
        // Bytes, not String interpolation: one answer per request, and the head is most of it.
        stream.enqueue { head in
            head.append(contentsOf: "HTTP/1.1 ".utf8)
            Self.appendDecimal(response.status, to: &head)
            head.append(UInt8(ascii: " "))
            head.append(contentsOf: Self.reasonPhrase(response.status).utf8)
            head.append(contentsOf: "\r\n".utf8)
            for field in response.headers {
                if field.name.equalsIgnoringASCIICase("content-length") || field.name.equalsIgnoringASCIICase("connection")
                    || field.name.equalsIgnoringASCIICase("transfer-encoding") { continue }
                head.append(contentsOf: field.name.utf8)
                head.append(contentsOf: ": ".utf8)
                head.append(contentsOf: field.value.utf8)
                head.append(contentsOf: "\r\n".utf8)
            }
            head.append(contentsOf: "content-length: ".utf8)
            Self.appendDecimal(response.body?.count ?? 0, to: &head)
            head.append(contentsOf: keepAlive ? "\r\n\r\n".utf8 : "\r\nconnection: close\r\n\r\n".utf8)
            if withBody, let body = response.body { head.append(contentsOf: body) }
        }
    }

    /// A small `String` lives inline: no allocation for a status or a length.
    private static func appendDecimal(_ value: Int, to output: inout [UInt8]) {
        output.append(contentsOf: String(value).utf8)
    }

    /// The request's method: the common ones without measuring and validating a C string.
    private var method: String {
        switch parser.pointee.method {
        case UInt32(HTTP_POST.rawValue): "POST"
        case UInt32(HTTP_GET.rawValue): "GET"
        default: String(cString: http_method_str(http_method(rawValue: parser.pointee.method)))
        }
    }

    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 410: "Gone"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 421: "Misdirected Request"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        case 505: "HTTP Version Not Supported"
        default: "Status \(status)"
        }
    }

    func didDrain() { resumeParsing() }

    // MARK: Controls

    func resetStream(streamID: Int32, errorCode: HTTP2ErrorCode) {
        guard awaitingResponse, streamID == sequence else { return }
        stream.close(error: nil, abort: true)
    }

    func setMaxConcurrentStreams(_ value: Int) {}

    func sendGoAway(errorCode: HTTP2ErrorCode, debugData: [UInt8]) {
        beginGracefulShutdown()
    }

    func pauseReading() {
        stream.pauseReading()
    }

    func resumeReading() {
        stream.resumeReading()
    }

    func closeConnection() {
        closing = true
        stream.closeAfterFlush()
        stream.flush()
    }

    func beginGracefulShutdown() {
        closing = true
        if !hasOpenStreams { closeConnection() }
    }

    func refuseUnansweredRequests() {
        guard hasOpenStreams, !rejected else { return }
        if awaitingResponse {
            awaitingResponse = false
            context.counters.openStreams.wrappingSubtract(1, ordering: .relaxed)
        }
        reject(.shuttingDown)
    }

    func expireRequests(dueBy now: ContinuousClock.Instant) {
        guard let deadline = nextRequestDeadline, deadline <= now, !rejected else { return }
        guard inMessage else {
            // Only empty lines came, which RFC 9112 lets a server skip: no request to answer.
            readStartedAt = nil
            closeConnection()
            return
        }
        context.counters.timedOutRequests.wrappingAdd(1, ordering: .relaxed)
        reject(HTTPRequestRejection.timedOut(headersComplete: headersDone, context.configuration))
    }

    func connectionDidClose() {
        if hasOpenStreams { context.counters.openStreams.wrappingSubtract(1, ordering: .relaxed) }
        inMessage = false
        awaitingResponse = false
        readStartedAt = nil
    }
}

private func owner(_ parser: UnsafeMutablePointer<http_parser>?) -> HTTP1ServerSession? {
    guard let data = parser?.pointee.data else { return nil }
    return Unmanaged<HTTP1ServerSession>.fromOpaque(data).takeUnretainedValue()
}
