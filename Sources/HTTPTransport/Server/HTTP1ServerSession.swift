/// The server side of one HTTP/1.1 connection, read by `HTTP1RequestParser`. Loop-confined.
///
/// Keep-alive and `Content-Length` or chunked bodies are handled; pipelined requests are
/// answered strictly in order: bytes after a complete request wait until its response is queued.
final class HTTP1ServerSession: ServerSession, DeferredFlushing {
    private var parser: HTTP1RequestParser
    private let stream: ByteStream
    private let connection: HTTPConnection
    private let context: ServerContext

    // The request being parsed.
    private var method = ""
    private var path = ""
    private var headers = HTTPHeaders()
    private var body: [UInt8] = []
    private var inMessage = false
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
    /// Bytes not parsed yet: a head or trailer section not complete (the parser reads it
    /// again from its start with the next bytes), or requests pipelined behind one being answered.
    private var pendingInput: [UInt8] = []
    /// `pendingInput` holds bytes that came while an answer was awaited, to parse once it is queued.
    private var inputHeldBack = false
    private var inParse = false
    private var rejected = false
    private var closing = false
    private var flushScheduled = false

    init(stream: ByteStream, connection: HTTPConnection, context: ServerContext) {
        self.stream = stream
        self.connection = connection
        self.context = context
        parser = HTTP1RequestParser(limits: HTTP1ParserLimits(
            maxHeaderListSize: context.configuration.maxHeaderListSize, maxBodySize: context.configuration.maxBodySize))
    }

    var hasOpenStreams: Bool { inMessage || awaitingResponse }

    var nextRequestDeadline: ContinuousClock.Instant? {
        readStartedAt.map { HTTPRequestRejection.deadline(startedAt: $0, headersComplete: headersDone, context.configuration) }
    }

    var awaitsClientPreface: Bool { false }

    // MARK: Input

    func receive(_ bytes: UnsafeRawBufferPointer) {
        guard !closing || hasOpenStreams, !rejected else { return }
        if awaitingResponse {
            inputHeldBack = true
            pendingInput.append(contentsOf: bytes)
            if pendingInput.count > context.configuration.maxBodySize + context.configuration.maxHeaderListSize + 65536 {
                stream.close(error: .protocolViolation("too many pipelined bytes while a response is pending"))
            }
            return
        }
        if !pendingInput.isEmpty {
            pendingInput.append(contentsOf: bytes)
            parsePending(receivedAt: stream.lastActivity)
            return
        }
        let parsed = parse(bytes, receivedAt: stream.lastActivity)
        if parsed < bytes.count, !rejected, !closing || hasOpenStreams {
            pendingInput.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[parsed...]))
            inputHeldBack = awaitingResponse
        }
    }

    /// Parses what is held, keeping what the parser or an answer still waits for.
    private func parsePending(receivedAt: ContinuousClock.Instant) {
        var input = pendingInput
        pendingInput = []
        let parsed = input.withUnsafeBytes { parse($0, receivedAt: receivedAt) }
        guard parsed < input.count, !rejected, !closing || hasOpenStreams else { return }
        input.removeFirst(parsed)
        input.append(contentsOf: pendingInput)
        pendingInput = input
        inputHeldBack = awaitingResponse
    }

    /// Parses until the input ends, a request waits for its answer, or the connection is
    /// refused or switches protocols. Returns the bytes used.
    private func parse(_ input: UnsafeRawBufferPointer, receivedAt: ContinuousClock.Instant) -> Int {
        var offset = 0
        inParse = true
        defer { inParse = false }
        while !rejected {
            // Bytes go to the parser only between answers, so these begin the next request.
            if readStartedAt == nil, offset < input.count {
                readStartedAt = receivedAt
                headersDone = false
            }
            let rest = UnsafeRawBufferPointer(rebasing: input[offset...])
            let event: HTTP1RequestParser.Event
            let consumed: Int
            do throws(HTTP1ParseError) {
                (event, consumed) = try parser.parse(rest)
            } catch {
                beginMessageIfStarted()
                if !headersDone, parser.headStart <= rest.count {
                    readPartialHead(UnsafeRawBufferPointer(rebasing: rest[parser.headStart...]))
                }
                reject(rejection(for: error))
                return input.count
            }
            beginMessageIfStarted()
            offset += consumed
            switch event {
            case .needMoreInput:
                return offset
            case .head:
                readHead(UnsafeRawBufferPointer(rebasing: rest[(consumed - parser.head.size)..<consumed]))
            case .body(let range):
                body.append(contentsOf: UnsafeRawBufferPointer(rebasing: rest[range]))
            case .end:
                messageComplete()
                if parser.head.isUpgrade {
                    // We do not switch protocols; the request was answered and the connection ends.
                    closing = true
                    return input.count
                }
                // An answered request that closes the connection is its last one.
                if awaitingResponse || closing { return offset }
            }
        }
        return input.count
    }

    private func beginMessageIfStarted() {
        guard !inMessage, parser.isReadingRequest else { return }
        method = ""
        path = ""
        headers = HTTPHeaders()
        body = []
        headersDone = false
        inMessage = true
        context.counters.openStreams.wrappingAdd(1, ordering: .relaxed)
    }

    /// The request line and the fields read so far, from the bytes the head began in.
    private func readPartialHead(_ bytes: UnsafeRawBufferPointer) {
        guard inMessage else { return }
        let head = parser.head
        let end = head.fields.last?.value.upperBound ?? max(head.method.upperBound, head.target.upperBound)
        guard end <= bytes.count else { return }
        readRequestLineAndFields(bytes)
    }

    /// The strings `HTTPRequest` holds, made from the parser's ranges into the head's bytes.
    private func readRequestLineAndFields(_ bytes: UnsafeRawBufferPointer) {
        let head = parser.head
        method = head.method(in: bytes)
        path = head.string(head.target, in: bytes)
        headers = HTTPHeaders()
        // Room for the fields: growing one at a time reallocates 3 or 4 times.
        headers.reserveCapacity(head.fields.count)
        for field in head.fields { headers.add(name: head.string(field.name, in: bytes), value: head.string(field.value, in: bytes)) }
    }

    private func readHead(_ bytes: UnsafeRawBufferPointer) {
        headersDone = true
        readRequestLineAndFields(bytes)
        guard context.configuration.acceptsHTTP1 else {
            reject(HTTPRequestRejection(.http2Only, message: "this server speaks HTTP/2 only"))
            return
        }
        // The declared length (within the limit): the body is copied once instead of being
        // reallocated as it doubles from 16 bytes.
        if let length = parser.head.contentLength, length > 0 { body.reserveCapacity(length) }
    }

    /// The rejection a parse error is answered with.
    private func rejection(for error: HTTP1ParseError) -> HTTPRequestRejection {
        switch error.kind {
        case .unsupportedVersion where !context.configuration.acceptsHTTP1:
            HTTPRequestRejection(.http2Only, message: "this server speaks HTTP/2 only")
        case .unsupportedVersion:
            HTTPRequestRejection(.versionNotSupported, message: "only HTTP/1.0 and HTTP/1.1 are served")
        case .bodyTooLarge:
            .bodyTooLarge(limit: error.limit ?? context.configuration.maxBodySize)
        case .requestLineTooLong:
            HTTPRequestRejection(.uriTooLong, limit: error.limit, message: "request line exceeds \(error.limit ?? 0) bytes")
        case .headTooLarge, .headerListTooLarge, .tooManyFields:
            error.kind == .tooManyFields
                ? HTTPRequestRejection(.headerListTooLarge, limit: error.limit, message: "request has more than \(error.limit ?? 0) header fields")
                : .headerListTooLarge(limit: error.limit ?? context.configuration.maxHeaderListSize)
        default:
            HTTPRequestRejection(.malformed, message: error.description)
        }
    }

    private func messageComplete() {
        inMessage = false
        readStartedAt = nil
        awaitingResponse = true
        keepAlive = parser.head.keepAlive
        answeringHead = method == "HEAD"
        sequence &+= 1
        context.counters.requests.wrappingAdd(1, ordering: .relaxed)
        let request = HTTPRequest(
            method: method, path: path, authority: headers["host"],
            scheme: connection.isSecure ? "https" : "http", headers: headers, body: body, version: .http1_1,
            streamID: sequence, connection: connection)
        body = []
        context.handler.handle(request, responder: HTTPResponder(connection: connection, streamID: sequence))
    }

    // MARK: Output

    /// What was read of the request the parser is in: nothing of a request not begun.
    private func partialRequest() -> HTTPRequest {
        HTTPRequest(
            method: inMessage ? method : "", path: inMessage ? path : "", authority: inMessage ? headers["host"] : nil,
            scheme: connection.isSecure ? "https" : "http", headers: inMessage ? headers : HTTPHeaders(), body: [],
            version: .http1_1, streamID: sequence &+ 1, connection: connection)
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
        guard inputHeldBack, !closing, !awaitingResponse, !stream.isClosed, !pendingInput.isEmpty else { return }
        inputHeldBack = false
        // Held back while the previous request was answered: the client was not slow meanwhile.
        parsePending(receivedAt: .now)
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
        case 414: "URI Too Long"
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
        readHeldPartialHead()
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
        readHeldPartialHead()
        reject(HTTPRequestRejection.timedOut(headersComplete: headersDone, context.configuration))
    }

    /// A head not complete is held from its first byte, so what was read of it can be shown.
    private func readHeldPartialHead() {
        guard inMessage, !headersDone else { return }
        pendingInput.withUnsafeBytes { readPartialHead($0) }
    }

    func connectionDidClose() {
        if hasOpenStreams { context.counters.openStreams.wrappingSubtract(1, ordering: .relaxed) }
        inMessage = false
        awaitingResponse = false
        readStartedAt = nil
    }
}
