import HTTPTransport

/// The handler the transport targets serve with. The request path picks how it answers,
/// so the fuzzer reaches each way a handler can: at once, later on the loop, with a body
/// large enough to fill the flow-control window and the socket buffer, by resetting the
/// stream, or never (the connection's close must release the stream).
public struct FuzzHTTPHandler: HTTPServerHandler {
    public init() {}

    public func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        let path = request.path
        if path.hasPrefix("/later") {
            let response = Self.echo(request)
            // A stopped loop refuses the task; the connection closes with it.
            try? responder.eventLoop.execute { responder.respond(response) }
        } else if path.hasPrefix("/big") {
            responder.respond(HTTPResponse(status: 200, body: [UInt8](repeating: UInt8(ascii: "x"), count: 100_000)))
        } else if path.hasPrefix("/reset") {
            responder.reset()
        } else if path.hasPrefix("/never") {
            return
        } else {
            responder.respond(Self.echo(request))
        }
    }

    /// 200 with the request's body and a header naming each request header: what a
    /// handler reading everything the transport handed it would send.
    private static func echo(_ request: HTTPRequest) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add(name: "x-method", value: request.method)
        headers.add(name: "x-header-count", value: String(request.headers.count))
        return HTTPResponse(status: request.body.isEmpty ? 204 : 200, headers: headers, body: request.body.isEmpty ? nil : request.body)
    }
}
