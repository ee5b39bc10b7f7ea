/// Decides how to answer requests. The server calls it on the connection's event loop.
///
/// Handlers that answer from memory should respond synchronously inside `handle`,
/// which is the fast path. Anything slow must not block the loop: hand it to another
/// thread or use `AsyncHTTPServerHandler`.
public protocol HTTPServerHandler: Sendable {
    /// Called once per complete request, on the connection's event loop.
    func handle(_ request: HTTPRequest, responder: HTTPResponder)
    /// Called on the event loop when a connection has been set up. Defaults to nothing.
    func connectionOpened(_ connection: HTTPConnection)
    /// Called on the event loop when a connection has closed. Defaults to nothing.
    func connectionClosed(_ connection: HTTPConnection)
    /// The answer to a request the transport refused before it reached `handle`: not valid
    /// HTTP/1.1, a body or header list over its limit, or not complete within
    /// `requestReadTimeout`. `handle` is not called for it, and the rest of the request is
    /// not read: an HTTP/1.1 connection closes after the answer, an HTTP/2 stream still being
    /// sent is reset (NO_ERROR) after it.
    ///
    /// `request` holds what was read before the transport stopped: the method and path (empty
    /// when the request line or pseudo-header was not read; a path cut short in HTTP/1.1), the
    /// headers complete by then in wire order (for a header list over the limit, those that fit
    /// within it: the field that crossed it and any after it are dropped), and an empty body.
    ///
    /// Defaults to `rejection.defaultResponse`: its status with a plain-text explanation. A
    /// server that speaks a protocol of its own answers in that protocol instead, keeping the
    /// status (`rejection.status`).
    func rejectedRequestResponse(_ request: HTTPRequest, rejection: HTTPRequestRejection) -> HTTPResponse
    /// Answers a request the transport refused on an HTTP/2 stream, through `responder`, at
    /// once or later: the stream waits for its answer like any other (and is reset after it
    /// if the client is still sending). For a handler whose answer waits on other work, such
    /// as a write to disk. Defaults to answering `rejectedRequestResponse` at once; HTTP/1.1
    /// refusals always use that, because the connection closes after the answer.
    func handleRejected(_ request: HTTPRequest, rejection: HTTPRequestRejection, responder: HTTPResponder)
}

extension HTTPServerHandler {
    public func connectionOpened(_ connection: HTTPConnection) {}
    public func connectionClosed(_ connection: HTTPConnection) {}
    public func rejectedRequestResponse(_ request: HTTPRequest, rejection: HTTPRequestRejection) -> HTTPResponse {
        rejection.defaultResponse
    }

    public func handleRejected(_ request: HTTPRequest, rejection: HTTPRequestRejection, responder: HTTPResponder) {
        responder.respond(rejectedRequestResponse(request, rejection: rejection))
    }
}

/// A handler written with `async`/`await`; each request runs in its own task.
public protocol AsyncHTTPServerHandler: Sendable {
    /// Returns the response; a thrown error becomes a 500.
    func handle(_ request: HTTPRequest) async throws -> HTTPResponse
}

/// Runs an `AsyncHTTPServerHandler` from the event loop.
public struct AsyncHandlerAdapter<Handler: AsyncHTTPServerHandler>: HTTPServerHandler {
    public let handler: Handler
    public init(_ handler: Handler) { self.handler = handler }

    public func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        Task { [handler] in
            do {
                responder.respond(try await handler.handle(request))
            } catch {
                responder.respond(HTTPResponse(status: 500, text: "internal error: \(error)\n"))
            }
        }
    }
}

/// A handler made from a closure, synchronous or `async`.
///
/// ```swift
/// let hello = ClosureHandler { request in HTTPResponse(status: 200, text: "hi\n") }
/// ```
public struct ClosureHandler: HTTPServerHandler {
    private let body: @Sendable (HTTPRequest, HTTPResponder) -> Void

    /// A handler that answers synchronously on the event loop.
    public init(_ body: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        self.body = { request, responder in responder.respond(body(request)) }
    }

    /// A handler that answers from an `async` function.
    public init(async body: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse) {
        self.body = { request, responder in
            Task {
                do {
                    responder.respond(try await body(request))
                } catch {
                    responder.respond(HTTPResponse(status: 500, text: "internal error: \(error)\n"))
                }
            }
        }
    }

    /// A handler that gets the responder itself, to answer later or not at all.
    public init(responder body: @escaping @Sendable (HTTPRequest, HTTPResponder) -> Void) {
        self.body = body
    }

    public func handle(_ request: HTTPRequest, responder: HTTPResponder) { body(request, responder) }
}
