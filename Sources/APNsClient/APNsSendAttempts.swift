import APNsCore
import HTTPTransport

/// One push's way through the retry policy, shared by `APNsClient`'s async and callback
/// `send`, so both retry exactly alike: what each attempt sends, and from its outcome
/// whether the push is delivered, has failed for good (thrown), or goes again, at once or
/// after a jittered backoff. Broadcasts and channel management requests
/// (``APNsProviderRequest``) go the same way.
struct APNsSendAttempts: Sendable {
    /// What follows an attempt that did not end the push with an error.
    enum Next: Sendable {
        /// APNs accepted it (a 2xx answer; 200 for a push), with this answer.
        case delivered(HTTPClientResponse)
        /// Send it again, after `delay` when there is one.
        case again(after: Duration?)
    }

    /// The push's apns-id, or a request's apns-request-id: the same on every attempt.
    let apnsID: String
    /// The pool id of the connection that last refused the push unprocessed (REFUSED_STREAM):
    /// the next lease avoids it when another connection has room or can be opened.
    private(set) var avoidedConnection: Int?
    private let policy: APNsRetryPolicy
    private let outgoing: Outgoing
    /// Attempts counted against the policy: a resend after an expired provider token, a
    /// connection's too early token change or an unprocessed stream does not count.
    private var attempt = 0
    private var token: APNsProviderTokenSource.Token?
    private var refreshedExpiredToken = false
    private var resentAfterTooManyTokenUpdates = false
    private var unprocessedResends = 0
    /// `APNsClientConfiguration.requestTimeout`: each attempt's own bound.
    private let requestTimeout: Duration
    /// `APNsClientConfiguration.sendTimeout`, and when it runs out; nil for no bound beyond
    /// the attempts' own.
    private let sendTimeout: Duration?
    private let deadline: ContinuousClock.Instant?
    /// The latest failure of an attempt that was followed by another, for `.sendTimedOut`.
    private var lastFailure: APNsClientError?

    /// How far an attempt's own timeout may end past the deadline before it is cut to
    /// what is left: the first attempt, which starts with all the time there is, keeps the
    /// connection's shared timer (a timer of its own costs every push) when `requestTimeout`
    /// is no longer than `sendTimeout`; so an attempt ends at most this late. A request
    /// timeout that ends within it of the deadline counts as the send timeout.
    static let deadlineTolerance = Duration.milliseconds(5)

    /// What the attempts send besides the provider token.
    private enum Outgoing: Sendable {
        /// A push to a device, to `/3/device/<token>`.
        case push(APNsNotification, path: String)
        /// A broadcast or channel management request; its id goes in `apns-request-id`.
        case request(APNsProviderRequest)
    }

    /// The attempts for `notification`, checked for sending; `apnsID` when it has none.
    ///
    /// - Parameters:
    ///   - requestTimeout: one attempt's bound, from hand-over to the whole answer.
    ///   - sendTimeout: the whole push's bound, counted from now; nil for none.
    init(_ notification: APNsNotification, apnsID generated: @autoclosure () -> String,
         policy: APNsRetryPolicy, requestTimeout: Duration = APNsClientConfiguration.defaultRequestTimeout,
         sendTimeout: Duration? = nil) throws(APNsClientError) {
        try notification.validateForSending()
        apnsID = notification.apnsID ?? generated()
        self.policy = policy
        outgoing = .push(notification, path: "/3/device/" + notification.deviceToken)
        self.requestTimeout = requestTimeout
        self.sendTimeout = sendTimeout
        deadline = sendTimeout.map { ContinuousClock.now + $0 }
    }

    /// The attempts for a broadcast or channel management request, whose `apns-request-id`
    /// is `request.requestID`, else `requestID`.
    init(_ request: APNsProviderRequest, requestID generated: @autoclosure () -> String,
         policy: APNsRetryPolicy, requestTimeout: Duration = APNsClientConfiguration.defaultRequestTimeout,
         sendTimeout: Duration? = nil) {
        apnsID = request.requestID ?? generated()
        self.policy = policy
        outgoing = .request(request)
        self.requestTimeout = requestTimeout
        self.sendTimeout = sendTimeout
        deadline = sendTimeout.map { ContinuousClock.now + $0 }
    }

    /// Starts the next attempt: the request with `token`, the provider token its leased
    /// connection carries (nil with certificate authentication).
    ///
    /// The headers are built here, token first, rather than once with the token replaced
    /// on each attempt: nearly every push has one attempt, and replacing means a search.
    mutating func begin(token: APNsProviderTokenSource.Token?) -> HTTPClientRequest {
        attempt += 1
        self.token = token
        var headers = HTTPHeaders()
        // The token and every field below: built once, never reallocated.
        headers.reserveCapacity(7)
        if let token {
            headers.add(name: APNsHeaderName.authorization, value: token.bearer)
        }
        var request: HTTPClientRequest
        switch outgoing {
        case let .push(notification, path):
            Self.add(notification, apnsID: apnsID, to: &headers)
            request = HTTPClientRequest(method: "POST", path: path, headers: headers, body: notification.payload)
        case let .request(provider):
            headers.add(name: APNsHeaderName.requestID, value: apnsID)
            for (name, value) in provider.headers { headers.add(name: name, value: value) }
            request = HTTPClientRequest(method: provider.method, path: provider.path, headers: headers, body: provider.body)
        }
        if let deadline {
            // What is left of the send timeout, when that ends before the attempt's own would.
            let remaining = ContinuousClock.now.duration(to: deadline)
            if remaining < requestTimeout - Self.deadlineTolerance {
                request.timeout = max(remaining, .milliseconds(1))
            }
        }
        return request
    }

    /// Ends the attempt sent on `connection` (leased from `pool`, released here) with `result`.
    ///
    /// - Throws: the push's final error: a rejection that is not retryable (from an answer,
    ///   or from the reason of a GOAWAY that left the push unprocessed), a transport failure
    ///   that may have been delivered, the last failure once the policy is used up, or
    ///   `.sendTimedOut` when the attempt was cut short by the send timeout or the next one
    ///   (after its backoff) would start after it.
    mutating func end(
        _ result: Result<HTTPClientResponse, HTTPClientError>, on connection: APNsPooledConnection,
        pool: APNsConnectionPool, tokens: APNsProviderTokenSource?
    ) throws(APNsClientError) -> Next {
        guard let deadline, let sendTimeout else { return try endAttempt(result, on: connection, pool: pool, tokens: tokens) }
        let next: Next
        do throws(APNsClientError) {
            next = try endAttempt(result, on: connection, pool: pool, tokens: tokens)
        } catch {
            if case .transport(.timedOut(.request, _)) = error, ContinuousClock.now + Self.deadlineTolerance >= deadline {
                throw .sendTimedOut(after: sendTimeout, attempts: attempt, last: lastFailure)
            }
            throw error
        }
        guard case let .again(delay) = next else { return next }
        let failure = self.failure(of: result)
        guard ContinuousClock.now + (delay ?? .zero) < deadline else {
            throw .sendTimedOut(after: sendTimeout, attempts: attempt, last: failure)
        }
        lastFailure = failure
        return next
    }

    /// What an attempt that is followed by another failed with, as its error.
    private func failure(of result: Result<HTTPClientResponse, HTTPClientError>) -> APNsClientError {
        switch result {
        case let .success(response): .rejected(rejection(from: response))
        case let .failure(error): .transport(error)
        }
    }

    /// ``end(_:on:pool:tokens:)`` without the send timeout.
    private mutating func endAttempt(
        _ result: Result<HTTPClientResponse, HTTPClientError>, on connection: APNsPooledConnection,
        pool: APNsConnectionPool, tokens: APNsProviderTokenSource?
    ) throws(APNsClientError) -> Next {
        avoidedConnection = nil
        switch result {
        case let .success(response):
            if isSuccess(response.status) {
                pool.release(connection, acceptedToken: token?.generation)
                return .delivered(response)
            }
            let rejection = self.rejection(from: response)
            // Any answer but a provider-token error means APNs took the token (or never
            // judged it): the connection's 20 minutes run from here as from a 200, so a
            // connection whose pushes are all rejected for their device is not replaced at
            // every refresh. (Counted from the answer, never before APNs' own moment.)
            let tokenErrors = rejection.status == 403 || rejection.reason == .tooManyProviderTokenUpdates
            return try reject(rejection, on: connection, pool: pool, tokens: tokens,
                              acceptedToken: tokenErrors ? nil : token?.generation)
        case let .failure(error):
            switch error {
            case let .goAway(_, debugData, _):
                // APNs ends a connection for a fatal reason (a certificate for the other
                // environment, say) with GOAWAY, last stream 0 and the reason as debug data:
                // every new connection would meet the same. The push gets that reason.
                if let rejection = fatalRejection(inGoAwayDebugData: debugData) {
                    return try reject(rejection, on: connection, pool: pool, tokens: tokens, acceptedToken: nil)
                }
                pool.release(connection)
                return try resendUnprocessed(after: error, on: connection)
            case .streamReset(errorCode: .refusedStream):
                pool.release(connection)
                return try resendUnprocessed(after: error, on: connection)
            case .connectionClosed:
                // Lost before its answer, after a GOAWAY that named a fatal reason: a resend
                // would meet the same reason on every new connection.
                if let goAway = connection.client.lastGoAway, let rejection = fatalRejection(inGoAwayDebugData: goAway.debugData) {
                    return try reject(rejection, on: connection, pool: pool, tokens: tokens, acceptedToken: nil)
                }
                pool.release(connection)
                return try retry(after: .transport(error))
            default:
                pool.release(connection)
                throw .transport(error)
            }
        }
    }

    /// APNs' answer to the push, or the reason of the GOAWAY that ended its connection;
    /// `acceptedToken` is the generation of the token the answer shows APNs took.
    private mutating func reject(
        _ rejection: APNsRejection, on connection: APNsPooledConnection, pool: APNsConnectionPool,
        tokens: APNsProviderTokenSource?, acceptedToken: Int?
    ) throws(APNsClientError) -> Next {
        if rejection.reason == .expiredProviderToken, let tokens, let token, !refreshedExpiredToken {
            // APNs may wedge a connection that saw an expired token (pushy's experience):
            // sign afresh, leave the connection, and send this push once more.
            pool.release(connection, retire: true)
            tokens.invalidate(generation: token.generation)
            refreshedExpiredToken = true
            attempt -= 1
            return .again(after: nil)
        }
        if rejection.reason == .tooManyProviderTokenUpdates {
            // About the connection, not the push: it changed tokens sooner than APNs
            // allows and is refused until 20 minutes pass (the pool keeps that from
            // happening; this is the fallback). Leave it, and send the push once more, with
            // the same apns-id, on another connection.
            pool.release(connection, retire: true)
            guard !resentAfterTooManyTokenUpdates else { throw .rejected(rejection) }
            resentAfterTooManyTokenUpdates = true
            attempt -= 1
            return .again(after: nil)
        }
        pool.release(connection, acceptedToken: acceptedToken)
        guard rejection.isRetryable else { throw .rejected(rejection) }
        return try retry(after: .rejected(rejection))
    }

    /// The server did not process the push (GOAWAY above its last stream, REFUSED_STREAM):
    /// sent again, on another connection when there is one, at most
    /// `APNsClient.maximumUnprocessedResends` times beyond the policy; the first at once, later
    /// ones after the policy's backoff. Past that budget it is a failed attempt like any other.
    private mutating func resendUnprocessed(
        after error: HTTPClientError, on connection: APNsPooledConnection
    ) throws(APNsClientError) -> Next {
        avoidedConnection = connection.id
        guard unprocessedResends < APNsClient.maximumUnprocessedResends else { return try retry(after: .transport(error)) }
        unprocessedResends += 1
        attempt -= 1
        guard unprocessedResends > 1 else { return .again(after: nil) }
        var random = SystemRandomNumberGenerator()
        return .again(after: policy.backoff(afterAttempt: unprocessedResends - 1, using: &random))
    }

    /// Another attempt after the policy's backoff, or `failure` (as `.retriesExhausted` when
    /// there were retries) once the policy is used up.
    private func retry(after failure: APNsClientError) throws(APNsClientError) -> Next {
        guard attempt < policy.maximumAttempts else {
            throw policy.maximumAttempts == 1 ? failure : .retriesExhausted(attempts: attempt, last: failure)
        }
        var random = SystemRandomNumberGenerator()
        return .again(after: policy.backoff(afterAttempt: attempt, using: &random))
    }

    /// The reason in a GOAWAY's `{"reason":…}` debug data when it dooms the push on any
    /// connection: a reason this version knows that is not retryable, except `IdleTimeout`
    /// (about the connection's idleness, not the push). Nil for anything else, such as
    /// `Shutdown`, no debug data, or text that is not APNs' JSON.
    static func fatalReason(inGoAwayDebugData debugData: [UInt8]) -> APNsReason? {
        guard !debugData.isEmpty, let reason = APNsClient.errorBody(debugData).reason, reason.status != nil, !reason.isRetryable, reason != .idleTimeout else { return nil }
        return reason
    }

    /// The push's rejection by a GOAWAY whose debug data names a fatal reason (``fatalReason(inGoAwayDebugData:)``).
    private func fatalRejection(inGoAwayDebugData debugData: [UInt8]) -> APNsRejection? {
        Self.fatalReason(inGoAwayDebugData: debugData).map { reason in
            switch outgoing {
            case .push: APNsRejection(status: reason.status ?? 403, reason: reason, apnsID: apnsID)
            case .request: APNsRejection(status: reason.status ?? 403, reason: reason, apnsID: "", requestID: apnsID)
            }
        }
    }

    /// A push succeeds with 200 only; a channel is created with 201 and deleted with 204.
    private func isSuccess(_ status: Int) -> Bool {
        switch outgoing {
        case .push: status == 200
        case .request: (200...299).contains(status)
        }
    }

    /// APNs' error answer, with the push's apns-id or the request's apns-request-id.
    private func rejection(from response: HTTPClientResponse) -> APNsRejection {
        switch outgoing {
        case .push:
            return APNsClient.rejection(from: response, apnsID: apnsID)
        case .request:
            var rejection = APNsClient.rejection(from: response, apnsID: "")
            rejection.requestID = response.headers[APNsHeaderName.requestID] ?? apnsID
            return rejection
        }
    }

    /// The accepted push's ids and attempts, from its answer.
    func acceptedPush(_ response: HTTPClientResponse) -> APNsResponse {
        APNsResponse(apnsID: response.headers[APNsHeaderName.id] ?? apnsID,
                     uniqueID: response.headers[APNsHeaderName.uniqueID], status: response.status, attempts: attempt)
    }

    /// The retry policy's attempts made so far, the current one included.
    var attemptsMade: Int { attempt }

    private static func add(_ notification: APNsNotification, apnsID: String, to headers: inout HTTPHeaders) {
        headers.add(name: APNsHeaderName.pushType, value: notification.pushType.rawValue)
        headers.add(name: APNsHeaderName.id, value: apnsID)
        if let topic = notification.topic { headers.add(name: APNsHeaderName.topic, value: topic) }
        headers.add(name: APNsHeaderName.priority, value: String(notification.effectivePriority.rawValue))
        if let expiration = notification.expiration {
            headers.add(name: APNsHeaderName.expiration, value: String(expiration.unixSeconds))
        }
        if let collapseID = notification.collapseID { headers.add(name: APNsHeaderName.collapseID, value: collapseID) }
    }
}
