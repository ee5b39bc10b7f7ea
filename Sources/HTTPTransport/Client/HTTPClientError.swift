/// Why an `HTTP2Client` request or connect failed.
///
/// `isRetryable` says whether the server certainly did not process the request, so
/// that sending it again on a new connection is safe.
public enum HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What ran out of time.
    public enum TimeoutKind: Sendable, Hashable {
        /// The TCP connect plus the TLS handshake.
        case connect
        /// One request, from `send(_:)` to the end of its response.
        case request
        /// A PING's acknowledgement (`HTTP2ClientConfiguration.pingTimeout`): the connection
        /// is taken as dead and closed.
        case ping
    }

    /// The TCP connect failed: refused, unreachable, or the server hung up during setup.
    case connectFailed(TransportError)
    /// The TLS handshake failed, for example because the server's certificate did not verify.
    case tlsHandshakeFailed(TransportError)
    /// TLS succeeded but the server did not select ALPN `h2`; `selected` is what it chose.
    case alpnNotNegotiated(selected: String?)
    /// The connect or the request took longer than its timeout.
    case timedOut(TimeoutKind, after: Duration)
    /// The server sent GOAWAY and will not process this request; retry on a new connection.
    case goAway(errorCode: HTTP2ErrorCode, debugData: [UInt8], lastStreamID: Int32)
    /// The connection was lost before the response was complete; the server may have processed the request.
    case connectionClosed(TransportError?)
    /// The server reset the request's stream with `errorCode`.
    case streamReset(errorCode: HTTP2ErrorCode)
    /// The server broke HTTP/2, or nghttp2 refused the request; the text says which.
    case protocolError(String)
    /// The server answered with a header field value longer than the HTTP/2 decoder takes
    /// (64 KiB). Only this request failed, its stream reset with CANCEL; the connection and
    /// its other requests go on.
    case responseHeaderTooLarge
    /// The task that called `send(_:)` was cancelled; the stream was reset with CANCEL.
    case cancelled
    /// `close()` was called on the client.
    case closed
    /// The client's event loop (named) has stopped because its `EventLoopGroup` was shut down
    /// while the client was still in use: nothing more can be sent on it. A request already
    /// sent may or may not have been processed.
    case eventLoopStopped(String)

    /// True when the server certainly did not process the request, so it may be sent again.
    public var isRetryable: Bool {
        switch self {
        case .goAway: return true
        case let .streamReset(code): return code == .refusedStream
        default: return false
        }
    }

    /// What failed and what to do about it, for logs and people.
    public var description: String {
        switch self {
        case let .connectFailed(error):
            return "HTTP/2 connect failed: \(error)"
        case let .tlsHandshakeFailed(error):
            return "HTTP/2 TLS handshake failed: \(error); check the trust roots and the server name"
        case let .alpnNotNegotiated(selected):
            let chosen = selected.map { "selected '\($0)'" } ?? "selected no protocol"
            return "the server did not agree to HTTP/2 over TLS: ALPN offered 'h2' but the server \(chosen); "
                + "set negotiatesALPN = false only for servers that speak HTTP/2 without ALPN"
        case let .timedOut(.connect, duration):
            return "HTTP/2 connect (TCP and TLS handshake) timed out after \(duration)"
        case let .timedOut(.request, duration):
            return "HTTP/2 request timed out after \(duration); its stream was reset with CANCEL, "
                + "other requests on the connection go on"
        case let .timedOut(.ping, duration):
            return "the server did not acknowledge an HTTP/2 PING within \(duration); the connection was taken as "
                + "dead and closed, and a new client makes a new one"
        case let .goAway(errorCode, debugData, lastStreamID):
            let debug = debugData.isEmpty ? "no debug data" : "debug data \(String(decoding: debugData, as: UTF8.self))"
            return "the server sent GOAWAY \(errorCode.wireName) with last stream \(lastStreamID) (\(debug)); "
                + "this request was not processed and is safe to retry on a new connection"
        case let .connectionClosed(error):
            let cause = error.map { ": \($0)" } ?? ""
            return "the HTTP/2 connection closed before the response was complete\(cause); "
                + "the server may or may not have processed the request"
        case let .streamReset(errorCode):
            return "the server reset the HTTP/2 stream with \(errorCode.wireName)"
        case let .protocolError(message):
            return "HTTP/2 protocol error: \(message)"
        case .responseHeaderTooLarge:
            return "the server's answer carried a header value over \(OversizedValueFilter.decoderStringLimit / 1024) KiB, "
                + "more than the HTTP/2 decoder takes; this request failed (its stream was reset with CANCEL), "
                + "the connection and other requests go on"
        case .cancelled:
            return "the HTTP/2 request was cancelled; its stream was reset with CANCEL"
        case .closed:
            return "the HTTP/2 client was closed; create a new client to send more requests"
        case let .eventLoopStopped(name):
            return "the HTTP/2 client's event loop \(name) has stopped (its EventLoopGroup was shut down); "
                + "a request already sent may or may not have been processed. Keep a shared group running "
                + "until every client on it has closed"
        }
    }
}
