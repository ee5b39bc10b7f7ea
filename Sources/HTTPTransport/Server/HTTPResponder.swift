/// Answers one request. Copyable and safe to use from any thread; the first answer wins.
///
/// A handler that runs on the event loop answers at once for speed; one that needs to
/// wait keeps the responder and answers later, without holding up other streams.
public struct HTTPResponder: Sendable {
    let connection: HTTPConnection
    let streamID: Int32

    /// The loop of the connection this answers; a task that prefers it as its executor
    /// answers without a thread hop (see `EventLoop`'s `TaskExecutor` conformance).
    public var eventLoop: EventLoop { connection.eventLoop }

    /// Sends `response` for this request.
    public func respond(_ response: HTTPResponse) {
        // The common case answers on the loop: call straight through, no closure to allocate.
        if connection.eventLoop.inEventLoop {
            connection.controller?.respond(streamID: streamID, response: response)
        } else {
            connection.onLoop { [streamID] in $0.respond(streamID: streamID, response: response) }
        }
    }

    /// Sends `response` after `delay`; other streams on the connection go on meanwhile.
    public func respond(_ response: HTTPResponse, after delay: Duration) {
        let connection = connection, streamID = streamID
        // Refused only once the loop has stopped, which closed the connection.
        try? connection.eventLoop.scheduleTask(after: delay) {
            connection.controller?.respond(streamID: streamID, response: response)
        }
    }

    /// Resets the HTTP/2 stream instead of answering; closes an HTTP/1.1 connection.
    public func reset(errorCode: HTTP2ErrorCode = .cancel) {
        connection.onLoop { [streamID] in $0.resetStream(streamID: streamID, errorCode: errorCode) }
    }
}
