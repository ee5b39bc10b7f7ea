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
    /// The answer to a request whose body grew past `limit` bytes; `handle` is not called
    /// for it. `request` has the method, path and headers, and an empty body.
    ///
    /// Defaults to 413 with a plain-text explanation; a server that speaks a protocol of
    /// its own (APNs' `{"reason":"PayloadTooLarge"}`) answers in that protocol instead.
    func oversizedRequestResponse(_ request: HTTPRequest, limit: Int) -> HTTPResponse
    /// The answer to a request whose header list grew past `limit` bytes (RFC 9113 size:
    /// name + value + 32 per field); `handle` is not called for it, and the rest of the
    /// request is not read. `request` has the method, the path and the headers that fit
    /// within the limit, in wire order (fields past it are dropped, not cut), and an empty
    /// body; a path that did not fit itself is empty (HTTP/2) or cut short (HTTP/1.1).
    ///
    /// Defaults to 431 with a plain-text explanation; a server that speaks a protocol of its
    /// own answers in that protocol instead.
    func headerListTooLargeResponse(_ request: HTTPRequest, limit: Int) -> HTTPResponse
}

extension HTTPServerHandler {
    public func connectionOpened(_ connection: HTTPConnection) {}
    public func connectionClosed(_ connection: HTTPConnection) {}
    public func oversizedRequestResponse(_ request: HTTPRequest, limit: Int) -> HTTPResponse {
        HTTPResponse(status: 413, text: "request body exceeds \(limit) bytes\n")
    }
    public func headerListTooLargeResponse(_ request: HTTPRequest, limit: Int) -> HTTPResponse {
        HTTPResponse(status: 431, text: "request header list exceeds \(limit) bytes\n")
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
