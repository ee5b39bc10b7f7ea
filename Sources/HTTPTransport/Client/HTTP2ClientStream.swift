/// How an async caller waits: resumed exactly once, on the event loop.
///
/// Unchecked, because the checked form allocates and verifies on every request: exactly
/// once is this module's guarantee. A continuation reaches the loop only through the
/// connection's inbox and is resumed only by `HTTP2ClientStream.finish`, which forgets it
/// first; every path that ends a connection finishes the streams it holds.
typealias HTTP2ClientContinuation = UnsafeContinuation<Result<HTTPClientResponse, HTTPClientError>, Never>

/// Hears a request's response or why it failed; called once, on the event loop.
public typealias HTTP2ClientCompletion = @Sendable (Result<HTTPClientResponse, HTTPClientError>) -> Void

/// Who hears a request's outcome: an awaiting task, or a callback (no task at all).
/// Either way exactly once, on the event loop, through `HTTP2ClientStream.finish`.
enum HTTP2ClientWaiter {
    case continuation(HTTP2ClientContinuation)
    case completion(HTTP2ClientCompletion)

    func deliver(_ result: Result<HTTPClientResponse, HTTPClientError>) {
        switch self {
        case let .continuation(continuation): continuation.resume(returning: result)
        case let .completion(completion): completion(result)
        }
    }
}

/// Hears a PING's round-trip time or why it failed; called once, on the event loop.
typealias HTTP2PingWaiter = @Sendable (Result<Duration, HTTPClientError>) -> Void

/// One request from `send(_:)` until its caller is resumed.
///
/// The caller's thread creates it; from the moment it is handed to the event loop
/// (under the connection's lock) only the loop touches its mutable state.
final class HTTP2ClientStream: @unchecked Sendable {
    // Unchecked: the `let`s are set before the hand-over; every `var` is loop-confined.
    let request: HTTPClientRequest
    let timeout: Duration?
    let deadline: ContinuousClock.Instant?

    /// Nil before the loop accepts the request and after its caller has heard the outcome.
    private var waiter: HTTP2ClientWaiter?
    /// The loop has taken the request from the inbox.
    private(set) var isAccepted = false
    /// The caller's task was cancelled, possibly before the loop accepted the request.
    var isCancelled = false
    /// The nghttp2 stream; 0 until submitted.
    var streamID: Int32 = 0
    /// Request body bytes handed to nghttp2 so far.
    var bodyOffset = 0
    /// Times the server refused the stream before processing it and we sent it again.
    var refusals = 0
    var timer: ScheduledTask?

    var status = 0
    var headers = HTTPHeaders()
    var body: [UInt8] = []

    init(request: HTTPClientRequest, timeout: Duration?) {
        self.request = request
        self.timeout = timeout
        deadline = timeout.map { ContinuousClock.now + $0 }
    }

    var isFinished: Bool { isAccepted && waiter == nil }

    func accept(_ waiter: HTTP2ClientWaiter) {
        isAccepted = true
        self.waiter = waiter
    }

    /// Tells the caller; later calls do nothing, so no path can answer twice.
    ///
    /// - Returns: whether this call answered the caller.
    @discardableResult
    func finish(_ result: Result<HTTPClientResponse, HTTPClientError>) -> Bool {
        guard let waiter else { return false }
        self.waiter = nil
        timer?.cancel()
        timer = nil
        waiter.deliver(result)
        return true
    }

    /// Forgets a response that was never processed, before sending the request again.
    func prepareForRetry() {
        streamID = 0
        bodyOffset = 0
        status = 0
        headers = HTTPHeaders()
        body = []
    }

    var response: HTTPClientResponse {
        HTTPClientResponse(status: status, headers: headers, body: body, streamID: streamID)
    }
}
