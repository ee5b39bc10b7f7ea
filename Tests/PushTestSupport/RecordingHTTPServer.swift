import Foundation
import HTTPTransport
import Synchronization

/// A cleartext `HTTPServer` on a free port of 127.0.0.1 that records every request and
/// answers through a script: a fake gateway or agent for client-side tests.
public final class RecordingHTTPServer: Sendable {
    /// One request as received.
    public struct Request: Sendable {
        public var method: String
        public var path: String
        public var headers: HTTPHeaders
        public var body: [UInt8]
        public var bodyText: String { String(decoding: body, as: UTF8.self) }
    }

    private final class Handler: HTTPServerHandler {
        let recorded = Mutex<[Request]>([])
        let script: @Sendable (Request, Int, HTTPResponder) -> Void

        init(script: @escaping @Sendable (Request, Int, HTTPResponder) -> Void) {
            self.script = script
        }

        func handle(_ request: HTTPRequest, responder: HTTPResponder) {
            let recordedRequest = Request(method: request.method, path: request.path, headers: request.headers, body: request.body)
            let index = recorded.withLock { list -> Int in
                list.append(recordedRequest)
                return list.count - 1
            }
            script(recordedRequest, index, responder)
        }
    }

    private let server: HTTPServer
    private let handler: Handler

    /// Starts a server whose `script` answers each request, given its 0-based index among
    /// all requests; it may answer later (or never) through the responder.
    public init(script: @escaping @Sendable (Request, Int, HTTPResponder) -> Void) throws {
        handler = Handler(script: script)
        server = try HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0), handler: handler)
    }

    /// Starts a server answering each request at once with `answer`.
    public convenience init(answer: @escaping @Sendable (Request, Int) -> HTTPResponse) throws {
        try self.init { request, index, responder in responder.respond(answer(request, index)) }
    }

    /// `http://127.0.0.1:PORT`.
    public var baseURL: String { "http://\(server.localAddress)" }

    /// Every request so far, in arrival order.
    public var requests: [Request] { handler.recorded.withLock { $0 } }

    /// Shuts the server down.
    public func stop() {
        server.shutdown(gracePeriod: .milliseconds(200))
    }
}
