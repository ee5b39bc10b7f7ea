import Synchronization
internal import SystemSeam

/// One HTTP/2 connection to one origin, over TLS or cleartext h2c, shared by many requests.
///
/// Thousands of `send(_:)` calls may be in flight at once; they are multiplexed as
/// streams, and requests beyond the server's SETTINGS_MAX_CONCURRENT_STREAMS wait in
/// nghttp2 until a stream frees up. The connection lives on one event loop.
///
/// A client is one connection: after GOAWAY, connection loss or `close()`, every new
/// request fails with a clear error, and a new client makes a new connection.
///
/// ```swift
/// let client = try HTTP2Client(configuration: HTTP2ClientConfiguration(
///     host: "localhost", port: 8443, tls: .makeClientConfiguration(trustRootsPath: "certs/ca.pem")))
/// let response = try await client.send(HTTPClientRequest(method: "POST", path: "/3/device/abc", body: payload))
/// await client.close()
/// ```
public final class HTTP2Client: Sendable {
    /// How the client connects.
    public let configuration: HTTP2ClientConfiguration
    private let connection: HTTP2ClientConnection
    private let group: EventLoopGroup
    private let ownsGroup: Bool
    private let isClosed = Atomic<Bool>(false)

    /// Prepares a client; it connects on `connect()` or on the first `send(_:)`.
    ///
    /// - Parameters:
    ///   - configuration: server, TLS, timeouts and flow control.
    ///   - group: loops to run on; by default the client starts a one-loop group and
    ///     shuts it down in `close()`.
    ///   - chosenLoop: the loop of `group` to run on; by default the group's next.
    /// - Throws: `TransportError` when the port is out of range, the TLS files cannot be
    ///   loaded, or no event loop can be started. A host name that does not resolve fails
    ///   the connection (`HTTPClientError.connectFailed`), since names are resolved when
    ///   connecting.
    public convenience init(configuration: HTTP2ClientConfiguration, group sharedGroup: EventLoopGroup? = nil,
                            on chosenLoop: EventLoop? = nil) throws(TransportError) {
        let endpoint = try HTTP2ClientEndpoint(configuration: configuration)
        if let sharedGroup {
            self.init(endpoint: endpoint, group: sharedGroup, on: chosenLoop, ownsGroup: false)
        } else {
            self.init(endpoint: endpoint, group: try EventLoopGroup(threads: 1), on: chosenLoop, ownsGroup: true)
        }
    }

    /// Prepares a client for `endpoint`, sharing its TLS context with the endpoint's other
    /// clients; it connects on `connect()` or on the first `send(_:)`. Cheap enough to call
    /// on an event loop or under a lock: it reads no file and resolves no name.
    ///
    /// - Parameters:
    ///   - endpoint: server, TLS context, timeouts and flow control.
    ///   - group: loops to run on; the caller keeps it running until the client has closed.
    ///   - chosenLoop: the loop of `group` to run on; by default the group's next.
    public convenience init(endpoint: HTTP2ClientEndpoint, group: EventLoopGroup, on chosenLoop: EventLoop? = nil) {
        self.init(endpoint: endpoint, group: group, on: chosenLoop, ownsGroup: false)
    }

    private init(endpoint: HTTP2ClientEndpoint, group: EventLoopGroup, on chosenLoop: EventLoop?, ownsGroup: Bool) {
        configuration = endpoint.configuration
        self.group = group
        self.ownsGroup = ownsGroup
        connection = HTTP2ClientConnection(endpoint: endpoint, eventLoop: chosenLoop ?? group.next())
    }

    deinit {
        guard !isClosed.load(ordering: .acquiring) else { return }
        connection.requestClose(nil)
        if ownsGroup { group.shutdown() }
    }

    /// The loop the connection runs on: completions are called there.
    public var eventLoop: EventLoop { connection.eventLoop }

    /// Where the connection is in its life.
    public var state: HTTP2ClientState { connection.shared.withLock { $0.state } }

    /// True while requests can be sent on the open connection.
    public var isActive: Bool { state == .active }

    /// What the server's GOAWAY frames said, if it sent any: the latest error code and last
    /// stream, with debug data kept from an earlier frame when a later one has none.
    public var lastGoAway: HTTP2GoAway? { connection.shared.withLock { $0.lastGoAway } }

    /// The server's current SETTINGS_MAX_CONCURRENT_STREAMS: how many requests it lets run at once.
    ///
    /// Nil until the server's first SETTINGS frame (the client then assumes HTTP/2's 100).
    /// Servers may change it at any time; APNs announces 1 until a request carries a valid
    /// provider token, and lowers it to 1 after a rejected push. Requests beyond it wait
    /// in the client until a stream frees up.
    public var peerMaxConcurrentStreams: Int? { connection.shared.withLock { $0.peerMaxConcurrentStreams } }

    /// Requests handed to the connection whose callers have not been answered yet.
    var outstandingRequests: Int { connection.outstanding.load(ordering: .relaxed) }

    /// Connects now instead of on the first request; returns at once if already connected.
    ///
    /// - Throws: `HTTPClientError.connectFailed`, `.tlsHandshakeFailed`,
    ///   `.alpnNotNegotiated` or `.timedOut(.connect, ...)`; after GOAWAY, loss or
    ///   `close()`, the error that ended the connection.
    public func connect() async throws(HTTPClientError) {
        let result = await withCheckedContinuation { (waiter: CheckedContinuation<Result<Void, HTTPClientError>, Never>) in
            connection.connect(waiter)
        }
        try result.get()
    }

    /// Sends `request` on the connection, connecting first if needed, and waits for the whole response.
    ///
    /// Cancelling the calling task fails the request with `.cancelled` and resets its stream.
    ///
    /// - Parameter request: method, path, headers, body and an optional timeout.
    /// - Returns: the response, with any HTTP status; only transport failures throw.
    /// - Throws: `HTTPClientError`. `.goAway` and `.streamReset(.refusedStream)` mean the
    ///   server did not process the request (`isRetryable`); `.connectionClosed` means it may have.
    public func send(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
        let stream = HTTP2ClientStream(request: request, timeout: request.timeout ?? configuration.requestTimeout)
        let connection = connection
        let result = await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: HTTP2ClientContinuation) in
                if let rejection = connection.enqueue(stream, waiter: .continuation(continuation)) {
                    continuation.resume(returning: .failure(rejection))
                }
            }
        } onCancel: {
            connection.cancel(stream)
        }
        return try result.get()
    }

    /// Sends `request` like `send(_:)`, and calls `completion` with the response or the error
    /// instead of suspending a task: no task is created, enqueued or resumed per request.
    ///
    /// `completion` runs exactly once: on the connection's event loop, or, when the
    /// connection has already gone away or been closed, on the calling thread before this
    /// returns. Keep it short: the loop serves no socket while it runs. There is no
    /// cancellation; the request's timeout still applies.
    ///
    /// ```swift
    /// client.send(request) { result in
    ///     if case let .success(response) = result { print(response.status) }
    /// }
    /// ```
    public func send(_ request: HTTPClientRequest, completion: @escaping HTTP2ClientCompletion) {
        let stream = HTTP2ClientStream(request: request, timeout: request.timeout ?? configuration.requestTimeout)
        if let rejection = connection.enqueue(stream, waiter: .completion(completion)) {
            completion(.failure(rejection))
        }
    }

    /// Sends an HTTP/2 PING, connecting first if needed, and waits for the server's acknowledgement.
    ///
    /// Use it to keep an idle connection alive and to check that it still works.
    ///
    /// - Returns: the round-trip time.
    /// - Throws: `HTTPClientError`: the error that ended the connection, or the connect failure.
    @discardableResult
    public func ping() async throws(HTTPClientError) -> Duration {
        let connection = connection
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Duration, HTTPClientError>, Never>) in
            connection.ping { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// Sends an HTTP/2 PING like `ping()`, and calls `completion` on the connection's event
    /// loop with the round-trip time or the error; no task is needed to wait.
    ///
    /// For timers that run on an event loop, such as a pool's idle check. Keep `completion` short.
    public func ping(completion: @escaping @Sendable (Result<Duration, HTTPClientError>) -> Void) {
        connection.ping(completion)
    }

    /// Fails every pending request with `.closed`, sends GOAWAY, closes the connection,
    /// and shuts down the event loop group if the client made it. Later calls do nothing.
    public func close() async {
        guard !isClosed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            connection.requestClose(waiter)
        }
        if ownsGroup { group.shutdown() }
    }
}
